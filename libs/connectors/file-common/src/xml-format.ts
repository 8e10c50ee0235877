import { onFirstUse, textOf } from '@tideway/common';
import type { Column, DataType } from '@tideway/api';
import type { XMLParser } from 'fast-xml-parser';
import { columnError, TextFileEncoder } from './file-encoder.js';
import { javaDoubleText, javaFloatText } from './java-text.js';
import { compileJsonValueParser, compileJsonValueWriter } from './json-format.js';
import { compileTextFieldParsers } from './text-format.js';

/** fast-xml-parser (about 45 modules), loaded by the first XML read (docs/decisions/0090). */
const xmlParser = onFirstUse<{ XMLParser: typeof XMLParser }>('fast-xml-parser', import.meta.url);

/**
 * XML files as SeaTunnel's XmlWriter and XmlReadStrategy handle them: a root element
 * (xml_root_tag), one element per row (xml_row_tag), the fields as attributes
 * (xml_use_attr_format = true) or child elements, values as text (maps and arrays as JSON, nested
 * rows joined by field_delimiter). Reading parses a whole document, as SeaTunnel's DOM reader does.
 */

export interface XmlOptions {
  readonly rootTag: string;
  readonly rowTag: string;
  readonly useAttributes: boolean;
  readonly fieldDelimiter: string;
}

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Java's LocalTime/LocalDateTime.toString of a held time or timestamp: seconds only when not
 * zero (or a fraction follows), the fraction in groups of 3 digits (`05.5` -> `05.500`).
 */
export function javaTemporalToString(held: string): string {
  const t = held.indexOf('T');
  const date = t < 0 ? '' : held.slice(0, t + 1);
  const [hms, frac = ''] = held.slice(t + 1).split('.');
  const [h, m, sec = '00'] = hms.split(':');
  const digits = frac.replace(/0+$/, '');
  const fraction = digits === '' ? '' : `.${digits.padEnd(digits.length <= 3 ? 3 : digits.length <= 6 ? 6 : 9, '0')}`;
  return `${date}${h}:${m}${sec !== '00' || fraction !== '' ? `:${sec}` : ''}${fraction}`;
}

/** The text of a value (XmlWriter.convertToXmlString: Java's toString of the value). */
function compileText(type: DataType, fieldDelimiter: string): (v: unknown) => string {
  switch (type.kind) {
    case 'double':
      return (v) => javaDoubleText(v as number);
    case 'float':
      return (v) => javaFloatText(v as number);
    case 'time':
    case 'timestamp':
      return (v) => javaTemporalToString(v as string);
    case 'bytes':
      return (v) => Buffer.from(v as Uint8Array).toString('utf8');
    case 'array':
    case 'map':
      return compileJsonValueWriter(type);
    case 'row': {
      const parts = type.fields.map((f) => compileText(f.type, fieldDelimiter));
      return (v) => (v as unknown[]).map((x, i) => (x === null || x === undefined ? '' : parts[i](x))).join(fieldDelimiter);
    }
    default:
      return (v) => String(v);
  }
}

/** One XML file: the root element opened at the start, a row element per row, closed at the end. */
export class XmlFileEncoder extends TextFileEncoder {
  private readonly texts: ((v: unknown) => string)[];
  private readonly names: string[];

  constructor(
    columns: readonly Column[],
    private readonly o: XmlOptions,
    encode: (text: string) => Uint8Array,
  ) {
    super(encode);
    this.texts = columns.map((c) => compileText(c.type, o.fieldDelimiter));
    this.names = columns.map((c) => c.name);
    this.pending = `<?xml version="1.0" encoding="UTF-8"?>\n<${o.rootTag}>\n`;
  }

  protected render(fields: readonly unknown[]): string {
    const values = this.names.map((name, i) => {
      const v = fields[i];
      if (v === null || v === undefined) return '';
      try {
        return escape(this.texts[i](v));
      } catch (err) {
        throw columnError(name, err);
      }
    });
    if (this.o.useAttributes) return `  <${this.o.rowTag}${this.names.map((n, i) => ` ${n}="${values[i]}"`).join('')}/>\n`;
    return `  <${this.o.rowTag}>${this.names.map((n, i) => `<${n}>${values[i]}</${n}>`).join('')}</${this.o.rowTag}>\n`;
  }

  add(fields: readonly unknown[]): void {
    this.pending += this.render(fields);
  }

  override finish(): Uint8Array | undefined {
    this.pending += `</${this.o.rootTag}>\n`;
    return super.finish();
  }
}

/** Every element named `tag` below `node`, in document order (SeaTunnel's //tag). */
function elementsNamed(node: unknown, tag: string, out: Record<string, unknown>[]): void {
  if (Array.isArray(node)) {
    for (const n of node) elementsNamed(n, tag, out);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === tag)
      for (const e of Array.isArray(v) ? v : [v]) out.push(typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {});
    else elementsNamed(v, tag, out);
  }
}

/** Compiles the row decoder of an XML document: the fields of each row element, by schema column. */
export function compileXmlDocumentParser(columns: readonly Column[], o: XmlOptions): (text: string) => unknown[][] {
  const scalars = compileTextFieldParsers(columns, o.fieldDelimiter);
  const parse = columns.map((c, i) => {
    if (c.type.kind === 'array' || c.type.kind === 'map') {
      const json = compileJsonValueParser(c.type);
      return (t: string | undefined) => (t === undefined || t.trim() === '' ? null : json(t));
    }
    if (c.type.kind === 'string') return (t: string | undefined) => (t === undefined ? null : t);
    return scalars[i];
  });
  const prefix = o.useAttributes ? '@' : '';
  const parser = new (xmlParser().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    textNodeName: '#text',
  });
  const elementText = (v: unknown): string | undefined =>
    v === undefined || v === null ? undefined : typeof v === 'object' ? textOf((v as Record<string, unknown>)['#text'] ?? '') : textOf(v);
  return (text) => {
    const rows: Record<string, unknown>[] = [];
    elementsNamed(parser.parse(text), o.rowTag, rows);
    return rows.map((row) => columns.map((c, i) => parse[i](elementText(row[prefix + c.name]))));
  };
}
