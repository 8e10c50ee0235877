import { ErrorCode, TidewayError, type Place } from '@tideway/common';

/** A result column whose database type has no SeaTunnel mapping. */
export class UnsupportedColumnType extends TidewayError {
  override readonly name = 'UnsupportedColumnType';
  constructor(
    readonly column: string,
    readonly nativeType: string,
    readonly database: string,
    place?: Place,
    /** What was being done, e.g. `reading the columns of table public.t`. */
    doing?: string,
  ) {
    super(
      ErrorCode.UNSUPPORTED_TYPE,
      `${doing ? `${doing}: ` : ''}column '${column}' has ${database} type ${nativeType}, which has no SeaTunnel type`,
      { place },
    );
  }
}
