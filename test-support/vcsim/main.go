// vcsim for Stunwatch's integration tests: govmomi's vCenter simulator (Debian package
// golang-github-vmware-govmomi-dev 0.24), adjusted so the yavijava vim25 binding can talk to it.
// Prints "VCSIM_URL=<url>" (and "VCSIM_SHA256=<thumbprint>" with -tls) once it listens; runs until SIGTERM.
// deploy/vcsim builds the same file into the image of the site's simulated vCenter.
package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/simulator/vpx"
	"github.com/vmware/govmomi/vim25/types"
)

// privilegeOf names the privilege a method needs on its object, for the methods -deny-privilege can refuse.
var privilegeOf = map[string]string{
	"ReconfigureComputeResource_Task": "Host.Inventory.EditCluster",
}

// denying refuses the SOAP calls that need a privilege in denied, with the NoPermission fault a vCenter sends to an
// account whose role lacks it; every other call goes to next. vcsim 0.24 checks no privilege, so a role without one
// is played here, in front of the simulator.
func denying(next http.Handler, denied map[string]bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if method, err := simulator.UnmarshalBody(types.TypeFunc(), body); err == nil {
			if privilege, ok := privilegeOf[method.Name]; ok && denied[privilege] {
				fmt.Fprintf(os.Stderr, "vcsim: %s on %s refused: no %s\n", method.Name, method.This.Value, privilege)
				w.Header().Set("Content-Type", "text/xml; charset=utf-8")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, `%s<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" `+
					`xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault>`+
					`<faultcode>ServerFaultCode</faultcode><faultstring>Permission to perform this operation was denied.`+
					`</faultstring><detail><NoPermissionFault xmlns="urn:vim25" xsi:type="NoPermission">`+
					`<object type="%s">%s</object><privilegeId>%s</privilegeId></NoPermissionFault></detail>`+
					`</soapenv:Fault></soapenv:Body></soapenv:Envelope>`, xml.Header, escape(method.This.Type),
					escape(method.This.Value), escape(privilege))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func escape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

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
	denyPrivileges := flag.String("deny-privilege", "", "comma-separated privileges the account lacks, e.g. "+
		"Host.Inventory.EditCluster: the calls that need one are refused with NoPermission")
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
	if *denyPrivileges != "" {
		denied := map[string]bool{}
		for _, p := range strings.Split(*denyPrivileges, ",") {
			denied[strings.TrimSpace(p)] = true
		}
		// the server is listening but has had no request: nobody knows its URL until it is printed below
		server.Config.Handler = denying(server.Config.Handler, denied)
	}
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
