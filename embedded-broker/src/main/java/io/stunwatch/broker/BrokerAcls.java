package io.stunwatch.broker;

import io.stunwatch.broker.BrokerConfig.Role;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs of each {@link Role}: least privilege for what runs where tenants can reach it. A worker's login writes the
 * sample topics and nothing else, so a compromised GPU VM can forge its own samples at most: it can read no result,
 * write no vCenter event and join no group. These are the ACLs a site's own Kafka should grant the same roles.
 */
public final class BrokerAcls {

  /** The prefix of every Stunwatch topic, group, transactional id and Streams application id. */
  static final String PREFIX = "stunwatch";
  /** The vCenter collector's transactional ids: {@code stunwatch-vcenter-<vCenter uuid>}. */
  static final String VCENTER_TRANSACTIONAL_PREFIX = "stunwatch-vcenter-";

  private BrokerAcls() {
  }

  /** The bindings that give {@code user} its role. */
  public static List<AclBinding> of(String user, Role role) {
    String principal = "User:" + user;
    List<AclBinding> out = new ArrayList<>();
    switch (role) {
      case WORKER -> {
        for (Topic<?, ?> t : Topics.WORKER_OUTPUTS) {
          out.add(allow(principal, ResourceType.TOPIC, t.name(), PatternType.LITERAL, AclOperation.WRITE));
          out.add(allow(principal, ResourceType.TOPIC, t.name(), PatternType.LITERAL, AclOperation.DESCRIBE));
        }
      }
      case VCENTER -> {
        for (Topic<?, ?> t : Topics.VCENTER_OUTPUTS) {
          for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.READ)) {
            out.add(allow(principal, ResourceType.TOPIC, t.name(), PatternType.LITERAL, op));
          }
        }
        // the DRS guard's decisions, read by assignment (no group) to be applied
        for (AclOperation op : List.of(AclOperation.DESCRIBE, AclOperation.READ)) {
          out.add(allow(principal, ResourceType.TOPIC, Topics.GUARD_DECISIONS.name(), PatternType.LITERAL, op));
        }
        out.add(allow(principal, ResourceType.TRANSACTIONAL_ID, VCENTER_TRANSACTIONAL_PREFIX, PatternType.PREFIXED,
            AclOperation.WRITE));
        out.add(allow(principal, ResourceType.TRANSACTIONAL_ID, VCENTER_TRANSACTIONAL_PREFIX, PatternType.PREFIXED,
            AclOperation.DESCRIBE));
      }
      case HOSTS -> {
        // it reads the inventory by assignment, so it joins no group
        for (Topic<?, ?> t : Topics.HOSTS_OUTPUTS) {
          out.add(allow(principal, ResourceType.TOPIC, t.name(), PatternType.LITERAL, AclOperation.WRITE));
          out.add(allow(principal, ResourceType.TOPIC, t.name(), PatternType.LITERAL, AclOperation.DESCRIBE));
        }
        out.add(allow(principal, ResourceType.TOPIC, Topics.HOST_INVENTORY.name(), PatternType.LITERAL,
            AclOperation.DESCRIBE));
        out.add(allow(principal, ResourceType.TOPIC, Topics.HOST_INVENTORY.name(), PatternType.LITERAL,
            AclOperation.READ));
      }
      case SERVICE -> {
        // topics stunwatch.*, the application's internal topics and groups (stunwatch-processor-*), its
        // transactional ids (exactly-once), and what Streams asks of the cluster
        for (ResourceType type : List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)) {
          out.add(allow(principal, type, PREFIX, PatternType.PREFIXED, AclOperation.ALL));
        }
        for (AclOperation op : List.of(AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE)) {
          out.add(allow(principal, ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, op));
        }
      }
      default -> throw new IllegalArgumentException(String.valueOf(role));
    }
    return out;
  }

  /**
   * Upserts each user's SCRAM-SHA-512 and SCRAM-SHA-256 credentials and adds its role's ACLs, then waits until the
   * brokers have them (credentials and ACLs travel through the metadata log). Adding what exists changes nothing.
   *
   * @return the number of ACL bindings the users' roles have
   */
  public static int apply(Admin admin, List<BrokerConfig.User> users,
      Duration timeout) {
    List<AclBinding> acls = new ArrayList<>();
    users.forEach(u -> acls.addAll(of(u.name(), u.role())));
    long ms = timeout.toMillis();
    try {
      // one request per mechanism: Kafka refuses two alterations of one user in a request
      for (ScramMechanism m : List.of(
          ScramMechanism.SCRAM_SHA_512,
          ScramMechanism.SCRAM_SHA_256)) {
        List<UserScramCredentialAlteration> alterations = new ArrayList<>();
        for (BrokerConfig.User u : users) {
          alterations.add(new UserScramCredentialUpsertion(u.name(),
              new ScramCredentialInfo(m, 8192), u.password()));
        }
        admin.alterUserScramCredentials(alterations).all().get(ms, TimeUnit.MILLISECONDS);
      }
      admin.createAcls(acls).all().get(ms, TimeUnit.MILLISECONDS);
      long deadline = System.nanoTime() + timeout.toNanos();
      Set<String> names = new HashSet<>();
      users.forEach(u -> names.add(u.name()));
      while (!admin.describeUserScramCredentials().all().get(ms, TimeUnit.MILLISECONDS)
          .keySet().containsAll(names) || !admin.describeAcls(AclBindingFilter.ANY)
          .values().get(ms, TimeUnit.MILLISECONDS).containsAll(acls)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the users and ACLs did not reach the brokers within " + timeout);
        }
        Thread.sleep(50);
      }
      return acls.size();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while adding users", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot add the users and their ACLs: " + e.getMessage(), e);
    }
  }

  private static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern,
      AclOperation op) {
    return new AclBinding(new ResourcePattern(type, name, pattern),
        new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
  }
}
