/*
 * Incremental NDJSON reading: bytes arrive in arbitrary chunks, one JSON object a line
 * (docs/api.md, `application/x-ndjson`). Runs in: the service worker, and node unit tests.
 */

/**
 * @param {(value: any) => void | Promise<void>} onValue  called once per complete line, in order
 */
export function createLineReader(onValue) {
  const decoder = new TextDecoder('utf-8');
  let buffered = '';
  let lines = 0;

  /** @param {string} line */
  async function emit(line) {
    const text = line.trim();
    if (!text) return;
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      throw new SyntaxError(`line ${lines + 1} of the stream is not JSON: ${text.slice(0, 80)}`);
    }
    lines++;
    await onValue(value);
  }

  return {
    /** @param {Uint8Array} chunk */
    async push(chunk) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        await emit(line);
      }
    },
    /** The stream ended: a last line without its newline still counts. */
    async end() {
      buffered += decoder.decode();
      const rest = buffered;
      buffered = '';
      await emit(rest);
    },
    get lines() {
      return lines;
    },
  };
}

/**
 * Reads a fetch body to the end, line by line.
 * @param {ReadableStream<Uint8Array>} body
 * @param {(value: any) => void | Promise<void>} onValue
 * @param {() => void} [onChunk]  called on every chunk (the caller's inactivity timer)
 */
export async function readLines(body, onValue, onChunk) {
  const reader = createLineReader(onValue);
  const stream = body.getReader();
  for (;;) {
    const { done, value } = await stream.read();
    if (done) break;
    if (onChunk) onChunk();
    await reader.push(value);
  }
  await reader.end();
  return reader.lines;
}
