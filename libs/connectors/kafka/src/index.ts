export { kafkaSourceFactory, kafkaSourceSpec, ownerOf, type KafkaSplit } from './kafka-source.js';
export { kafkaSinkFactory, kafkaSinkSpec } from './kafka-sink.js';
export { consumerSettings, producerSettings, CONSUMER_CONFIG_KEYS, PRODUCER_CONFIG_KEYS } from './kafka-config.js';
export {
  abandonTransactions,
  commitByInfo,
  openTransactionIds,
  type KafkaCommitInfo,
  type KafkaWriterState,
  type TransactionalConfig,
} from './transactions.js';
export { compileAvroDecoder, compileAvroEncoder } from './avro-format.js';
export { compileProtobufDecoder, compileProtobufEncoder, protobufType } from './protobuf-format.js';
