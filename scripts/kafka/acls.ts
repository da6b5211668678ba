/**
 * The platform's Kafka ACLs and topics on a broker with an authorizer (make cluster's, scripts/kafka/broker.ts
 * `security`), made from the one table of platform busAccess.ts through a super user's admin client. Creating an
 * ACL or a topic that exists changes nothing, so this runs at every start.
 */
import kafkajs, { Kafka, logLevel, type AclEntry, type SASLOptions } from 'kafkajs';
import {
  BUS_PRINCIPALS,
  TOPIC_OWNERS,
  busAcls,
  type AclOperation,
  type BusPrincipal,
} from '@meridian/platform/busAccess';
import { DEAD_LETTER_TOPIC_CONFIG, EVENT_TOPIC_CONFIG } from '@meridian/platform/adapters/eventBus.kafka';
import { deadLetterTopicOf, topicOf } from '@meridian/platform/ports/eventBus';

// kafkajs is CommonJS: Node's ESM loader sees its enums on the default export only
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

const OPERATION: Record<AclOperation, number> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Create: AclOperationTypes.CREATE,
  Describe: AclOperationTypes.DESCRIBE,
  DescribeConfigs: AclOperationTypes.DESCRIBE_CONFIGS,
  Delete: AclOperationTypes.DELETE,
};

/** The broker's ACL entries of `principal` (User:<principal>), from busAcls. */
export function aclEntries(principal: BusPrincipal): AclEntry[] {
  return busAcls(principal).flatMap((acl) =>
    acl.operations.map((op) => ({
      resourceType: acl.resource.type === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
      resourceName: acl.resource.name,
      resourcePatternType:
        acl.resource.patternType === 'prefix' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      principal: `User:${principal}`,
      host: '*',
      operation: OPERATION[op],
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
}

/** Creates every principal's ACLs, and every event topic and its dead-letter topic (3 partitions, as the services would). */
export async function applyBusAccess(brokers: string[], sasl: SASLOptions): Promise<void> {
  const admin = new Kafka({ clientId: 'meridian-acls', brokers, sasl, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl: BUS_PRINCIPALS.flatMap(aclEntries) });
    const existing = new Set(await admin.listTopics());
    const topics = TOPIC_OWNERS.flatMap((owner) => [
      { topic: topicOf(owner), configEntries: EVENT_TOPIC_CONFIG },
      { topic: deadLetterTopicOf(topicOf(owner)), configEntries: DEAD_LETTER_TOPIC_CONFIG },
    ]).filter((t) => !existing.has(t.topic));
    if (topics.length > 0)
      await admin.createTopics({
        waitForLeaders: true,
        topics: topics.map((t) => ({ ...t, numPartitions: 3 })),
      });
  } finally {
    await admin.disconnect();
  }
}
