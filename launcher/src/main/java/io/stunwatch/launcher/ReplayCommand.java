package io.stunwatch.launcher;

import io.stunwatch.collectors.vcenter.VmwareLogFiles;
import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.collectors.worker.ReplayReport;
import io.stunwatch.collectors.worker.WorkerCollector;
import io.stunwatch.collectors.worker.WorkerConfig;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.bundle.BundleFiles;
import io.stunwatch.launcher.bundle.TarGz;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stunwatch replay BUNDLE}: a support bundle, a directory or a {@code .tar.gz}, replayed in one command.
 * Every file is read whatever its name, its kind told from its content, and the parts are replayed in the order
 * that gives the right answer: the inventory, the events, the VMs' vmware.log files, the hosts' vmkernel.log
 * files, then the GPU, RDMA and training readings.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Replay a support bundle, a directory or a .tar.gz, into Kafka in one command: vCenter inventory "
        + "and events (VI/JSON or govmomi JSON, pretty-printed or one per line, CloudEvents envelopes too), VMs' "
        + "vmware.log files in <moref>/ folders (vm-42/vmware.log), hosts' vmkernel.log files in a folder named after "
        + "the host (esx1/vmkernel.log), and every worker recording (nvidia-smi CSV, -q, "
        + "-q -x, nvidia-bug-report.log[.gz], vgpu -q, RDMA counters, training logs) in <vm-id>/ folders or named "
        + "<vm-id>*, a host's vgpu -q in a folder named after the host.",
        "Prints each file's kind, records published and lines skipped. Exit status 0 when every file was read "
            + "whole, 4 when a line or file was skipped (named in the summary), 5 when nothing was published."})
final class ReplayCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  ConfigOption config;

  @Mixin
  KafkaOption kafkaOption;

  @Parameters(index = "0", paramLabel = "BUNDLE", description = "A directory, or a .tar.gz or .tgz of one.")
  Path bundle;

  @Option(names = "--vcenter-uuid", description = "vCenter instance UUID of the bundle's vCenter data "
      + "(default: replay).")
  String vcenterUuid = "replay";

  @Option(names = "--event-type", paramLabel = "CLASS",
      description = "Event class of events that name none (govmomi JSON with no _typeName), e.g. VmMigratedEvent.")
  String eventType;

  @Option(names = "--vm-id", paramLabel = "UUID",
      description = "The VM of guest recordings that lie in no <vm-id>/ folder (worker.vm-id).")
  String vmId;

  @Option(names = "--hostname", description = "The host of vgpu -q recordings that lie in no host folder.")
  String hostname;

  @Option(names = "--columns", paramLabel = "FIELD,...", split = ",",
      description = "The --query-gpu fields of headerless (noheader) nvidia-smi CSVs, in order.")
  List<String> columns;

  ReplayCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    if (!Files.exists(bundle)) {
      throw new ParameterException(spec.commandLine(), bundle + ": no such file or directory");
    }
    ConfigSource source = kafkaOption.apply(config.load(ctx))
        .override(WorkerConfig.VM_ID, vmId, "--vm-id")
        .override(WorkerConfig.HOSTNAME, hostname, "--hostname");
    WorkerCollector.Settings settings = WorkerCollector.Settings.from(source);
    KafkaClientConfig kafka = settings.kafka();
    kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    Path root = bundle;
    Path unpacked = null;
    ReplayReport report = new ReplayReport();
    try {
      if (TarGz.isTarGz(bundle)) {
        unpacked = Files.createTempDirectory("stunwatch-bundle");
        TarGz.Result r = TarGz.unpack(bundle, unpacked);
        if (r.leftOut() > 0) {
          report.add(new ReplayReport.Row(bundle.getFileName().toString(), "tar.gz", 0, r.leftOut(),
              r.leftOut() + " entries left out, the first: " + r.firstLeftOut(), false));
        }
        root = unpacked;
      } else if (!Files.isDirectory(bundle)) {
        throw new ParameterException(spec.commandLine(), bundle + ": not a directory, .tar.gz or .tgz; a single "
            + "file replays with 'stunwatch collect worker --replay' or 'collect vcenter --replay'");
      }
      List<BundleFiles.Entry> entries = BundleFiles.list(root);
      VcenterBundle vcenter = new VcenterBundle(vcenterUuid, eventType, ctx);
      boolean anyVcenter = false;
      for (BundleFiles.Entry e : entries) {
        if (e.part() == BundleFiles.Part.INVENTORY) {
          vcenter.inventory(e.path(), e.name());
          anyVcenter = true;
        }
      }
      for (BundleFiles.Entry e : entries) {
        if (e.part() == BundleFiles.Part.EVENTS) {
          vcenter.events(e.path(), e.name());
          anyVcenter = true;
        }
      }
      Map<String, List<BundleFiles.Entry>> logs = new TreeMap<>();
      for (BundleFiles.Entry e : entries) {
        if (e.part() == BundleFiles.Part.VMWARE_LOG) {
          if (e.moref().isEmpty()) {
            vcenter.refused(e.name(), new ReplayRefusedException("a vmware.log whose VM is unknown",
                "put it in a folder named after the VM's managed object id, such as vm-42/vmware.log"));
          } else {
            logs.computeIfAbsent(e.moref().get(), k -> new ArrayList<>()).add(e);
          }
          anyVcenter = true;
        }
      }
      // a VM's rotated logs oldest first: vmware-N.log (higher N older) before vmware.log
      logs.forEach((moref, files) -> vcenter.vmwareLogs(moref, files.stream()
          .sorted(Comparator.comparingInt((BundleFiles.Entry e) -> VmwareLogFiles.rotation(e.path())).reversed())
          .map(e -> Map.entry(e.path(), e.name())).toList()));
      for (BundleFiles.Entry e : entries) {
        if (e.part() == BundleFiles.Part.VMKERNEL_LOG) {
          vcenter.vmkernelLog(e.path(), e.hostname().orElse(null), e.name());
          anyVcenter = true;
        }
      }
      if (anyVcenter) {
        vcenter.publish(kafka).rows().forEach(report::add);
      }
      List<WorkerCollector.ReplayFile> worker = new ArrayList<>();
      for (BundleFiles.Entry e : entries) {
        if (e.part() == BundleFiles.Part.WORKER) {
          worker.add(new WorkerCollector.ReplayFile(e.path(), e.name(),
              e.sysfs() ? Optional.of(ReplayKind.SYSFS) : Optional.empty(), e.vmId(), e.hostname()));
        }
      }
      if (!worker.isEmpty()) {
        ReplayReport w = WorkerCollector.replay(settings, worker, Optional.ofNullable(columns), ctx.clock());
        w.rows().forEach(report::add);
        report.undelivered(w.undelivered());
      }
      if (report.rows().isEmpty()) {
        report.add(new ReplayReport.Row(bundle.toString(), "bundle", 0, 0, "no files in it", true));
      }
    } finally {
      if (unpacked != null) {
        try (Stream<Path> walk = Files.walk(unpacked)) {
          walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
    return CollectCommand.Worker.print(ctx, report);
  }
}
