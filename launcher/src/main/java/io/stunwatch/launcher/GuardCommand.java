package io.stunwatch.launcher;

import io.stunwatch.collectors.vcenter.VcenterCollectors;
import io.stunwatch.collectors.vcenter.VcenterConfig;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.GuardAction;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stunwatch guard}: the DRS guard's own commands. */
@Command(name = "guard", mixinStandardHelpOptions = true,
    description = {"The DRS guard, which keeps busy GPU VMs where they are (guard.enabled)."},
    subcommands = {GuardCommand.Release.class})
final class GuardCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: release");
  }

  @Command(name = "release", mixinStandardHelpOptions = true,
      description = {"Undo every DRS override the guard set in the vCenters of vcenter.urls: each is restored to "
          + "what it replaced; one an admin changed since is left as it is. Each is an audit record of "
          + "stunwatch.guard-actions.",
          "A collect vcenter of those vCenters that still runs is fenced and stops, so that it sets nothing again: "
              + "start it again with guard.enabled=false, or leave it stopped.",
          "Exit status 0 when nothing is left held, 1 when vCenter refused a release."})
  static final class Release implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--all", required = true, description = "Every override the guard set (required, so that undoing "
        + "them all is never a slip of the keyboard).")
    boolean all;

    Release(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      ConfigSource source = kafkaOption.apply(config.load(ctx));
      KafkaClientConfig kafka = KafkaClientConfig.from(source);
      kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
      VcenterConfig vc = VcenterConfig.from(source, true);
      List<GuardAction> done = VcenterCollectors.releaseAllGuards(vc, kafka.clientProperties(), ctx.clock());
      for (GuardAction a : done) {
        ctx.out().printf("%s %s (%s) in %s: %s: %s%n", a.kind().name().toLowerCase(java.util.Locale.ROOT),
            a.vmName() == null ? a.vmId() : a.vmName(), a.vmMoref(), a.vcenterUuid(), a.result(), a.why());
      }
      long refused = done.stream().filter(a -> a.result() == GuardAction.Result.REFUSED).count();
      ctx.out().printf("%d override%s released, %d left to the admin, %d refused by vCenter%n",
          done.stream().filter(a -> a.result() == GuardAction.Result.APPLIED).count(),
          done.size() == 1 ? "" : "s",
          done.stream().filter(a -> a.result() == GuardAction.Result.LEFT_TO_ADMIN).count(), refused);
      ctx.out().flush();
      return refused == 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }
  }
}
