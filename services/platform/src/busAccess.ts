/**
 * Who may do what on Kafka: the one table the broker's credentials and ACLs are made from (make cluster's
 * broker, infra/k8s's KafkaUser resources, checked by their specs), and how a process's kafkajs client logs in.
 *
 * Every process logs in as its own SCRAM user (KAFKA_USERNAME / KAFKA_PASSWORD). A service publishes only on
 * its own topic (topicOf(service)); the gateway publishes on none. Any principal reads the event topics (a
 * consumer added later rebuilds from any of them), uses consumer groups named after itself (kafkaGroupId:
 * `<group>.<topic>`, each group starting with the principal's name), and writes dead letters (`<topic>.dlq`:
 * a consumer moves there what it cannot handle, whoever owns the topic).
 */
import type { SASLOptions } from 'kafkajs';
import { deadLetterTopicOf, topicOf } from './ports/eventBus.js';
import { SERVICES } from './services.js';

/** Services that publish events, each on topicOf(service). */
export const TOPIC_OWNERS = SERVICES;
export type TopicOwner = (typeof TOPIC_OWNERS)[number];

/** Every Kafka user of the platform: the topic owners and the gateway (live pushes: consumes only). */
export const BUS_PRINCIPALS = [...TOPIC_OWNERS, 'gateway'] as const;
export type BusPrincipal = (typeof BUS_PRINCIPALS)[number];

/** The SCRAM mechanism of every platform user (Strimzi's KafkaUser `scram-sha-512`). */
export const KAFKA_SASL_MECHANISM = 'scram-sha-512';

export type AclOperation = 'Read' | 'Write' | 'Create' | 'Describe' | 'DescribeConfigs' | 'Delete';

/** One allow rule, in the words of Strimzi's KafkaUser `spec.authorization.acls`. */
export interface BusAcl {
  resource: { type: 'topic' | 'group'; name: string; patternType: 'literal' | 'prefix' };
  operations: AclOperation[];
}

/** The topic `principal` publishes on, or null (the gateway). */
export function ownedTopic(principal: BusPrincipal): string | null {
  return (TOPIC_OWNERS as readonly string[]).includes(principal) ? topicOf(principal) : null;
}

/** What `principal` may do: the allow rules of its user (nothing else is allowed). */
export function busAcls(principal: BusPrincipal): BusAcl[] {
  const own = ownedTopic(principal);
  return [
    ...(own
      ? [
          {
            resource: { type: 'topic', name: own, patternType: 'literal' },
            operations: ['Write', 'Create', 'Describe', 'DescribeConfigs'],
          } satisfies BusAcl,
        ]
      : []),
    {
      resource: { type: 'topic', name: 'meridian.', patternType: 'prefix' },
      operations: ['Read', 'Describe'],
    },
    ...TOPIC_OWNERS.map((owner): BusAcl => ({
      resource: { type: 'topic', name: deadLetterTopicOf(topicOf(owner)), patternType: 'literal' },
      operations: ['Write', 'Create', 'Describe'],
    })),
    {
      resource: { type: 'group', name: principal, patternType: 'prefix' },
      operations: ['Read', 'Describe', 'Delete'],
    },
  ];
}

/** kafkajs' `sasl` option from KAFKA_USERNAME / KAFKA_PASSWORD, or undefined when they are not set. */
export function kafkaSasl(env: {
  KAFKA_USERNAME?: string;
  KAFKA_PASSWORD?: string;
}): SASLOptions | undefined {
  if (!env.KAFKA_USERNAME) return undefined;
  return {
    mechanism: KAFKA_SASL_MECHANISM,
    username: env.KAFKA_USERNAME,
    password: env.KAFKA_PASSWORD ?? '',
  };
}
