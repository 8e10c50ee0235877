/** One Server-Sent Event: its name (`message` when none) and its data lines joined. */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * Reads a text/event-stream body and calls `onEvent` for each event, until the body ends or
 * `onEvent` returns true (stop). Comment lines (`: ...`, the server's keep-alives) are skipped.
 * A reader of its own because EventSource cannot send an authorization header.
 */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: StreamEvent) => boolean | void): Promise<boolean> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const e = parseBlock(block);
      if (e && onEvent(e) === true) {
        await reader.cancel();
        return true;
      }
    }
  }
}

function parseBlock(block: string): StreamEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length || event !== 'message' ? { event, data: data.join('\n') } : undefined;
}
