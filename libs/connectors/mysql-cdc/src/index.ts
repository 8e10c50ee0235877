/** SeaTunnel's MySQL-CDC source (MySQL and MariaDB): snapshot chunks, then the ROW binlog. */
export { mysqlCdcSourceFactory, MySqlCdcSource } from './mysql-cdc-source.js';
export { MYSQL_CDC_SPEC, compileMySqlCdcOptions, type MySqlCdcConfig } from './mysql-cdc-options.js';
export { compareBinlog, type BinlogPosition } from './binlog-position.js';
