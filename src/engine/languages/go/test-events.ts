/**
 * A Go test binary's `-test.v=test2json` output turned into `go test -json` events, in the engine.
 *
 * Written from the format cmd/test2json documents (`go doc cmd/test2json`) and its observed behaviour
 * (test/integration/go-test-events.test.ts compares both on real binaries): the testing package marks
 * each framing line (`=== RUN`, `--- PASS:`, the final `PASS`/`FAIL`…) with a leading \x16 byte; once
 * one marked line was seen, only marked lines frame. Everything else is the output of the test named
 * by the last framing line. The events are those test2json writes (without `Time`: the conversion runs
 * after the binary ended), so the rest of the engine reads the same stream: reports/go-test-json.ts and
 * tampering.ts's framing and coverage-line checks.
 *
 * The input is the test's own: any bytes, of any length. The work is linear in it; a framing line is
 * only recognised within its first `LINE_BYTES` (as test2json: a longer line is output); an output
 * event holds at most `OUTPUT_BYTES` of it (cut at a UTF-8 boundary); the events kept are capped at the
 * phase's output limit (head and tail, whole lines, a marker between): a line of one byte becomes an
 * event of ~80. Every line of the result is an event this module wrote, or that marker: whatever the
 * test printed (raw JSON events included) is inside an `Output` string.
 */

/** test2json's input buffer: a framing line must end (\n included) within this many bytes. */
const LINE_BYTES = 4096;
/** test2json's output buffer: the most bytes of output one event holds. */
const OUTPUT_BYTES = 1024;

const MARKER = 0x16;
const NEWLINE = 0x0a;

/** `=== ACTION name`: a test starts, pauses, continues, is named as the one printing, or reports an attribute. */
const UPDATES = ['=== RUN   ', '=== PAUSE ', '=== CONT  ', '=== NAME  ', '=== PASS  ', '=== FAIL  ', '=== SKIP  ', '=== ATTR  ', '=== ARTIFACTS '];
/** `--- RESULT: name (0.00s)`: a test's result, possibly indented four spaces per level. */
const REPORTS = ['--- PASS: ', '--- FAIL: ', '--- SKIP: ', '--- BENCH: '];

// Go's unicode.IsSpace, which test2json trims test names with.
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export interface GoTestEvent {
  Action: string;
  Package: string;
  Test?: string;
  Elapsed?: number;
  Output?: string;
  Key?: string;
  Value?: string;
  Path?: string;
}

/** An event before the converter names its package and, where it has none, its test. */
type Draft = Omit<GoTestEvent, 'Package'>;

export interface ConvertOptions {
  /** The import path every event names (`go test -json`'s Package). */
  package: string;
  /** The binary's exit status: 0 passed, another failed, null: it was killed by the executor (no final event, as test2json killed with it). */
  exitCode: number | null;
  /** Seconds the run took (the final event's Elapsed). */
  elapsed?: number;
  /** The most bytes of events kept (head and tail, whole lines); the rest is dropped and `truncated` set. */
  maxBytes: number;
}

/** The event stream (one JSON object a line), and whether events were dropped for `maxBytes`. */
export function goTestEvents(raw: string, opts: ConvertOptions): { text: string; truncated: boolean } {
  const sink = new CappedLines(opts.maxBytes);
  const converter = new Converter(opts.package, (line) => sink.push(line));
  converter.write(Buffer.from(raw, 'utf8'));
  // As test2json says it: a failed binary that printed nothing still leaves a line that says why.
  if (!raw.length && opts.exitCode !== null && opts.exitCode !== 0) converter.write(Buffer.from(`exit status ${opts.exitCode}\n`));
  converter.end(opts.exitCode, opts.elapsed);
  return { text: sink.text(), truncated: sink.truncated };
}

class Converter {
  /** The test output is attributed to ('' outside any test). */
  private testName = '';
  /** Results read but not yet written, one per nesting level: written when a later framing line closes them. */
  private pending: Draft[] = [];
  private result: '' | 'pass' | 'fail' | 'skip' = '';
  /** A marked framing line was seen: from then on an unmarked line is output, whatever it says. */
  private needMarker = false;
  private readonly output: OutputCutter;
  /** `{"Action":"output","Package":…,` and the `"Test":…,` of the last test named: the common event written without building an object. */
  private readonly outputPrefix: string;
  private testJson: [string, string] = ['', ''];

  constructor(
    private readonly pkg: string,
    private readonly emit: (line: string) => void,
  ) {
    this.outputPrefix = `{"Action":"output","Package":${JSON.stringify(pkg)},`;
    this.output = new OutputCutter((text) => this.outputEvent(text));
    this.event({ Action: 'start' });
  }

  /**
   * The whole output, in lines: each ends after a \n, or before a \x16 that does not start it. A line
   * whose end is not within `LINE_BYTES` of its start is output in pieces of that size, as test2json's
   * full buffer writes it (a \x16 at a piece's start does not end it), and so is the last, unended line.
   */
  write(b: Buffer): void {
    let start = 0;
    while (start < b.length) {
      const window = Math.min(b.length, start + LINE_BYTES);
      const end = lineEnd(b, start, window);
      if (end >= 0) {
        this.line(b.subarray(start, end));
        start = end;
        continue;
      }
      let at = start;
      for (;;) {
        const to = Math.min(b.length, at + LINE_BYTES);
        const found = lineEnd(b, at, to);
        if (found >= 0 || to - at < LINE_BYTES) {
          const stop = found >= 0 ? found : b.length;
          this.output.write(b.subarray(at, stop));
          start = stop;
          break;
        }
        const cut = at + utf8Boundary(b.subarray(at, to));
        this.output.write(b.subarray(at, cut));
        at = cut;
      }
    }
  }

  /** After the last byte: what is buffered is written, then the package's result (unless the executor killed the binary). */
  end(exitCode: number | null, elapsed?: number): void {
    this.output.flush();
    if (exitCode === null) return;
    if (exitCode !== 0) this.result = 'fail';
    else if (this.result !== 'skip') this.result = 'pass';
    this.event({ Action: this.result, ...(elapsed !== undefined ? { Elapsed: elapsed } : {}) });
  }

  private line(whole: Buffer): void {
    if (!whole.length) return;
    let line = whole;
    let marked = false;
    if (this.needMarker && line[0] !== MARKER) {
      this.output.write(line);
      return;
    }
    if (line[0] === MARKER) {
      // Output before a framing line belongs to the test before it.
      this.output.flush();
      marked = true;
      line = line.subarray(1);
    }
    let text = line.toString('utf8');
    let trimmed = text.replace(/\r?\n$/, '');
    // `=== NAME` with no test loses its trailing spaces to editors and pipes alike.
    if (trimmed === '=== NAME') {
      text = '=== NAME  \n';
      trimmed = '=== NAME  ';
      line = Buffer.from(text);
    }
    if (trimmed === 'PASS' || trimmed === 'FAIL' || trimmed.startsWith('FAIL\t')) {
      // The binary's own summary: every test has ended.
      this.closeResults(0);
      this.testName = '';
      this.needMarker = marked;
      this.output.write(line);
      this.result = trimmed === 'PASS' ? 'pass' : 'fail';
      return;
    }
    if (text.startsWith('?   \t') && trimmed.endsWith('\t[no test files]') && !this.pending.length) this.result = 'skip';

    let framing = UPDATES.some((u) => text.startsWith(u));
    let depth = 0;
    let rest = text;
    if (!framing) {
      while (rest.startsWith('    ')) {
        rest = rest.slice(4);
        depth++;
      }
      framing = REPORTS.some((r) => rest.startsWith(r));
    }
    if (!framing) {
      // Indented output is a subtest's, by its depth, when that many results are open.
      if (depth > 0 && depth <= this.pending.length) this.testName = this.pending[depth - 1].Test ?? '';
      this.output.write(line);
      return;
    }

    const words = rest.slice(4);
    const space = words.indexOf(' ');
    const action = (space < 0 ? words : words.slice(0, space)).replace(/:$/, '').toLowerCase();
    let name = (space < 0 ? '' : words.slice(space + 1)).replace(GO_SPACE, '');

    if (rest.startsWith('-')) {
      const e: Draft = { Action: action };
      const paren = name.indexOf(' (');
      if (paren >= 0) {
        if (name.endsWith('s)')) {
          const seconds = name.slice(paren + 2, -2);
          if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(seconds)) e.Elapsed = Number(seconds);
        }
        name = name.slice(0, paren);
      }
      // Deeper than any open test: not a result the runner could print.
      if (this.pending.length < depth) {
        this.output.write(line);
        return;
      }
      this.needMarker = marked;
      this.closeResults(depth);
      e.Test = name;
      this.testName = name;
      this.pending.push(e);
      this.output.write(line);
      return;
    }

    const e: Draft = { Action: action };
    if (action === 'artifacts') {
      const at = name.indexOf(' ');
      if (at >= 0) [name, e.Path] = [name.slice(0, at), name.slice(at + 1)];
    } else if (action === 'attr') {
      const at = name.indexOf(' ');
      const kv = at >= 0 ? name.slice(at + 1) : '';
      if (at >= 0) name = name.slice(0, at);
      const k = kv.indexOf(' ');
      [e.Key, e.Value] = k >= 0 ? [kv.slice(0, k), kv.slice(k + 1)] : [kv, ''];
    }
    this.needMarker = marked;
    this.closeResults(0);
    this.testName = name;
    // `=== NAME` only says whose output follows.
    if (action === 'name') return;
    // The pause line is the test's last output before it waits.
    if (action === 'pause') this.output.write(line);
    this.event(e);
    if (action !== 'pause') this.output.write(line);
  }

  /** Writes the results still open at `depth` or deeper, innermost first. */
  private closeResults(depth: number): void {
    this.testName = '';
    while (this.pending.length > depth) this.event(this.pending.pop()!);
  }

  private event(e: Draft): void {
    // Field order as test2json writes them; absent fields left out (a million one-byte lines are a million events).
    const out: GoTestEvent = { Action: e.Action, Package: this.pkg };
    const test = e.Test || this.testName;
    if (test) out.Test = test;
    if (e.Elapsed !== undefined) out.Elapsed = e.Elapsed;
    if (e.Output !== undefined) out.Output = e.Output;
    if (e.Key) out.Key = e.Key;
    if (e.Value) out.Value = e.Value;
    if (e.Path) out.Path = e.Path;
    this.emit(JSON.stringify(out));
  }

  /** The same as `event({ Action: 'output', Output })`, faster: a million one-byte lines are a million events. */
  private outputEvent(text: string): void {
    if (this.testJson[0] !== this.testName) this.testJson = [this.testName, this.testName ? `"Test":${JSON.stringify(this.testName)},` : ''];
    this.emit(`${this.outputPrefix}${this.testJson[1]}"Output":${JSON.stringify(text)}}`);
  }
}

/**
 * Output into events: one per line (its \n kept), a line longer than `OUTPUT_BYTES` in pieces cut at
 * UTF-8 boundaries, and a cut before a \x16 that does not start the piece (as test2json).
 */
class OutputCutter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly emit: (text: string) => void) {}

  write(b: Buffer): void {
    let from = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (c === MARKER && this.size + (i - from) > 0) {
        this.take(b.subarray(from, i));
        from = i;
        this.flush();
      }
      if (c === NEWLINE) {
        if (this.size) {
          this.take(b.subarray(from, i + 1));
          this.flush();
        } else {
          this.emit(b.toString('utf8', from, i + 1));
        }
        from = i + 1;
      } else if (this.size + (i + 1 - from) >= OUTPUT_BYTES) {
        this.take(b.subarray(from, i + 1));
        from = i + 1;
        this.flushWhole();
      }
    }
    this.take(b.subarray(from));
  }

  flush(): void {
    if (!this.size) return;
    const all = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.emit(all.toString('utf8'));
  }

  private take(b: Buffer): void {
    if (!b.length) return;
    this.parts.push(b);
    this.size += b.length;
  }

  /** A full buffer: written up to its last whole UTF-8 sequence, the rest kept for the next piece. */
  private flushWhole(): void {
    const all = Buffer.concat(this.parts);
    const cut = utf8Boundary(all);
    this.parts = cut < all.length ? [all.subarray(cut)] : [];
    this.size = all.length - cut;
    if (cut > 0) this.emit(all.subarray(0, cut).toString('utf8'));
  }
}

/** Where the line starting at `from` ends, looking before `to`: after its \n, or before a \x16 past its first byte; -1: not there. */
function lineEnd(b: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    if (b[i] === NEWLINE) return i + 1;
    if (b[i] === MARKER && i > from) return i;
  }
  return -1;
}

/** The longest prefix of `b` that does not end inside a UTF-8 sequence that could still complete. */
function utf8Boundary(b: Buffer): number {
  for (let back = 1; back < 4 && back <= b.length; back++) {
    const c = b[b.length - back];
    if ((c & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 1;
    return needs > back ? b.length - back : b.length;
  }
  return b.length;
}

/** Lines kept within a byte budget: the first half and the last half, whole lines, a marker between. */
class CappedLines {
  private head: string[] = [];
  private headBytes = 0;
  private tail: string[] = [];
  private tailSizes: number[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private dropped = 0;
  private full = false;

  constructor(private readonly limit: number) {}

  push(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    if (!this.full && this.headBytes + bytes <= this.limit / 2) {
      this.head.push(line);
      this.headBytes += bytes;
      return;
    }
    this.full = true;
    this.tail.push(line);
    this.tailSizes.push(bytes);
    this.tailBytes += bytes;
    while (this.tailBytes > this.limit / 2 && this.tailStart < this.tail.length) {
      this.tailBytes -= this.tailSizes[this.tailStart];
      this.dropped += this.tailSizes[this.tailStart];
      this.tailStart++;
    }
    // Compacted now and then: the dropped lines' slots are not kept.
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailSizes = this.tailSizes.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    const tail = this.tail.slice(this.tailStart);
    const middle = this.dropped ? [`[xrepotest: ${this.dropped} bytes of test events dropped here; the limit is ${this.limit} bytes]`] : [];
    const lines = [...this.head, ...middle, ...tail];
    return lines.length ? `${lines.join('\n')}\n` : '';
  }
}
