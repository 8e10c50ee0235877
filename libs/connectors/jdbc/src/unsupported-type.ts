import { ErrorCode, TidewayError } from '@tideway/common';

/** A result column whose database type has no SeaTunnel mapping. */
export class UnsupportedColumnType extends TidewayError {
  override readonly name = 'UnsupportedColumnType';
  constructor(
    readonly column: string,
    readonly nativeType: string,
    database: string,
  ) {
    super(ErrorCode.UNSUPPORTED_TYPE, `column '${column}' has ${database} type ${nativeType}, which has no SeaTunnel type`);
  }
}
