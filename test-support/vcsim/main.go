// vcsim for Stunwatch's integration tests: govmomi's vCenter simulator (Debian package
// golang-github-vmware-govmomi-dev 0.24), adjusted so the yavijava vim25 binding can talk to it.
// Prints "VCSIM_URL=<url>" (and "VCSIM_SHA256=<thumbprint>" with -tls) once it listens; runs until SIGTERM.
// deploy/vcsim builds the same file into the image of the site's simulated vCenter.
package main

import (
	"crypto/sha256"
	"crypto/tls"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/simulator/vpx"
)

func main() {
	listen := flag.String("l", "127.0.0.1:0", "listen address")
	useTLS := flag.Bool("tls", false, "serve https with a self-signed certificate")
	clusters := flag.Int("cluster", 1, "clusters")
	hosts := flag.Int("host", 3, "hosts per cluster")
	vms := flag.Int("vm", 4, "VMs per resource pool")
	username := flag.String("username", "", "the only accepted user (default: any user and password)")
	password := flag.String("password", "", "its password")
	passwordFile := flag.String("password-file", "", "read the password from this file (trailing newline dropped); the URL printed then has no password")
	tlsCert := flag.String("tlscert", "", "serve https with this PEM certificate (with -tlskey) instead of a self-signed one")
	tlsKey := flag.String("tlskey", "", "the PEM private key of -tlscert")
	folders := flag.Int("folder", 0, "put the datacenter inside this many folders (as sites do)")
	uuid := flag.String("uuid", "", "the instance UUID (default: govmomi's fixed one)")
	newerAPI := flag.Bool("newer-api", false, "keep the ServiceContent properties newer than API 6.0")
	vmotion := flag.Bool("vmotion", false, "select vmk0 for vMotion on every host, as a site configures it")
	flag.Parse()
	if *vmotion {
		for i := range esx.HostConfigInfo.VirtualNicManagerInfo.NetConfig {
			nc := &esx.HostConfigInfo.VirtualNicManagerInfo.NetConfig[i]
			if nc.NicType == "vmotion" {
				nc.SelectedVnic = []string{"vmotion.key-vim.host.VirtualNic-vmk0"}
			}
		}
	}
	if *uuid != "" {
		vpx.ServiceContent.About.InstanceUuid = *uuid
	}

	// yavijava's own decoder fails on ServiceContent properties newer than API 6.0; -newer-api keeps them, as a
	// vCenter 8 sends them, for the tests of the collector's tolerant decoding.
	if !*newerAPI {
		vpx.ServiceContent.VStorageObjectManager = nil
		vpx.ServiceContent.CryptoManager = nil
		vpx.ServiceContent.FailoverClusterConfigurator = nil
		vpx.ServiceContent.FailoverClusterManager = nil
		vpx.ServiceContent.HealthUpdateManager = nil
		vpx.ServiceContent.HostSpecManager = nil
	}
	// govmomi 0.24's VmMigratedEvent template misses two braces: PostEvent of that type would panic.
	for i := range esx.EventInfo {
		f := esx.EventInfo[i].FullFormat
		f = strings.ReplaceAll(f, "{{.SourceHost.Name},", "{{.SourceHost.Name}},")
		f = strings.ReplaceAll(f, "{{.Host.Name},", "{{.Host.Name}},")
		esx.EventInfo[i].FullFormat = f
	}

	model := simulator.VPX()
	model.Cluster = *clusters
	model.ClusterHost = *hosts
	model.Machine = *vms
	model.Folder = *folders
	if err := model.Create(); err != nil {
		fmt.Fprintln(os.Stderr, "vcsim:", err)
		os.Exit(1)
	}
	model.Service.Listen = &url.URL{Host: *listen}
	if *passwordFile != "" {
		b, err := os.ReadFile(*passwordFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vcsim: -password-file:", err)
			os.Exit(2)
		}
		*password = strings.TrimRight(string(b), "\r\n")
	}
	if *username != "" {
		model.Service.Listen.User = url.UserPassword(*username, *password)
	}
	if *useTLS || *tlsCert != "" {
		*useTLS = true
		model.Service.TLS = new(tls.Config)
		if *tlsCert != "" {
			pair, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
			if err != nil {
				fmt.Fprintln(os.Stderr, "vcsim: -tlscert/-tlskey:", err)
				os.Exit(2)
			}
			model.Service.TLS.Certificates = []tls.Certificate{pair}
		}
	}
	server := model.Service.NewServer()
	printed := *server.URL
	if *passwordFile != "" && printed.User != nil {
		printed.User = url.User(printed.User.Username())
	}
	fmt.Printf("VCSIM_URL=%s\n", printed.String())
	if *useTLS {
		sum := sha256.Sum256(server.Certificate().Raw)
		hex := make([]string, len(sum))
		for i, b := range sum {
			hex[i] = fmt.Sprintf("%02X", b)
		}
		fmt.Printf("VCSIM_SHA256=%s\n", strings.Join(hex, ":"))
	}
	os.Stdout.Sync()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	server.Close()
	model.Remove()
}
