import { startKafka } from '@tideway/testing';
const k = await startKafka({ brokers: 1, heapMb: 384 });
console.log(k.bootstrap);
process.on('SIGTERM', async () => { await k.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
