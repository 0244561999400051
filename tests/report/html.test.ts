/**
 * The HTML report in a real browser (Debian's chromium, driven by playwright-core): it loads with no
 * console errors and no network request, the filters, the matrix and the findings work, a mismatch
 * is two clicks away with its explanation and differing bits, and text from vector files and
 * tools is shown as text, never run. Skips, saying why, where no Chromium is installed: the
 * documented set-up step `npm run setup:browser` (scripts/ensure-browser.mjs; .ci/run runs it before
 * `npm test`) finds one or installs Debian's where it can; `npm test` itself installs nothing.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml, scriptJson } from '../../harness/report/html.js';
import { EVIL, sampleReport } from '../helpers/sample-report.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

describe('the page data is inert inside <script>', () => {
  it('escapes <, >, & and line separators', () => {
    const s = scriptJson({ a: '</script><img src=x>', b: 'a&b\u2028' });
    expect(s).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(s)).toEqual({ a: '</script><img src=x>', b: 'a&b\u2028' });
  });
  it('is the JSON with exactly those five characters written as \\u escapes (against the regular expression that defines it)', () => {
    const chars = fc.constantFrom('<', '>', '&', '\u2028', '\u2029', 'a', '"', '\\', '\u00e9', '\u2264', '\n');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.array(chars).map((c) => c.join('')),
          ),
          { maxLength: 6 },
        ),
        (xs) => {
          const want = JSON.stringify(xs).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
          expect(scriptJson(xs)).toBe(want);
          expect(JSON.parse(scriptJson(xs))).toEqual(xs);
        },
      ),
      { numRuns: 2000 },
    );
  });
  it('the page has no external reference and forbids loads by policy', () => {
    const html = renderHtml(sampleReport());
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
    expect(html).not.toMatch(/<(img|link|iframe)\b|src="http|href="http/);
    expect(html).not.toContain(EVIL);
  });
});

describe("the page's header: the run's totals, passes counted and not kept included", () => {
  // the default ptxas + reference run keeps the first --keep passes of entries and of cases whole
  // and counts the rest in the stats (dropped.<family>.<entries|cases>): the console's "all results"
  const base = sampleReport();
  const report = { ...base, stats: { ...base.stats, 'dropped.atom.entries': 60000, 'dropped.red.entries': 30, 'dropped.atom.cases': 4883 } };
  const header = () =>
    /<header>([\s\S]*?)<\/header>/
      .exec(renderHtml(report))![1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
  const kept = base.counts.total.pass!;
  const all = kept + 64913;
  it('shows the totals of every result, as the console does, not those of the results kept', () => {
    const h = header();
    expect(h).toContain(`pass ${all.toLocaleString('en-US')}`);
    expect(h).toContain(`all results ${(base.results.length + 64913).toLocaleString('en-US')}`);
    expect(h).not.toMatch(new RegExp(`\\bpass ${kept}\\b`));
  });
  it('says how many passes were counted and not kept whole, and how to keep or replay them', () => {
    const h = header();
    expect(h).toContain(
      `64,913 of the ${all.toLocaleString('en-US')} passes were counted and not kept whole in this report (60,030 catalog entries, 4,883 cases)`,
    );
    expect(h).toMatch(/--keep all keeps them/);
    expect(h).toMatch(/replay any by its id/);
  });
  it('a report that keeps every result says nothing of the kind', () => {
    const h = /<header>([\s\S]*?)<\/header>/
      .exec(renderHtml(base))![1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(h).toContain(`pass ${kept}`);
    expect(h).not.toMatch(/not kept whole/);
  });
});

describe.skipIf(!CHROMIUM)('the HTML report in headless Chromium', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let browser: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let page: any;
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];
  let url: string;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    const dir = mkdtempSync(join(tmpdir(), 'ptxconf-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(sampleReport()));
    url = pathToFileURL(file).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('console', (m: { type(): string; text(): string }) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e: Error) => consoleErrors.push(e.message));
    page.on('request', (r: { url(): string }) => requests.push(r.url()));
    page.on('dialog', async (d: { message(): string; dismiss(): Promise<void> }) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await page.goto(url);
    await page.waitForSelector('#cases tr[data-index]');
  }, 60_000);
  afterAll(async () => browser?.close());

  it('loads with no console error, no request but the page itself, no dialog', async () => {
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(dialogs).toEqual([]);
  });

  it('shows the hostile case name as text: no <img> element, no alert', async () => {
    await page.fill('#f-text', '<img');
    const ids = await page.$$eval('#cases tr[data-index] td:nth-child(2)', (tds: Element[]) => tds.map((t) => t.textContent));
    expect(ids).toEqual([EVIL]);
    expect(await page.$$eval('img', (xs: Element[]) => xs.length)).toBe(0);
    expect(await page.$$eval('script', (xs: Element[]) => xs.length)).toBe(2);
    await page.click('#cases tr[data-index]');
    expect(await page.textContent('#detail-id')).toBe(EVIL);
    expect(await page.textContent('#detail')).toContain(`cases/${EVIL}.yaml`);
    expect(dialogs).toEqual([]);
  });

  it('the verdict filter keeps only that verdict and says how many', async () => {
    await page.fill('#f-text', '');
    await page.selectOption('#f-verdict', 'pass');
    const verdicts = await page.$$eval('#cases tr[data-index] td:first-child', (tds: Element[]) => tds.map((t) => t.textContent));
    expect(verdicts.length).toBe(30);
    expect(new Set(verdicts)).toEqual(new Set(['pass']));
    expect(await page.textContent('#count')).toMatch(/showing 30 of 30 matching results \(34 in the page\)/);
    await page.selectOption('#f-verdict', '');
  });

  it('two clicks to a mismatch and its explanation: the finding, then the case, with the differing bits marked', async () => {
    const finding = await page.$$eval('.findings tr[data-finding]', (trs: Element[]) => trs.map((t) => t.textContent ?? ''));
    const i = finding.findIndex((t: string) => t.includes('cp.reduce.async.bulk .add.f32 on .global') && t.includes('mismatch'));
    expect(i).toBeGreaterThanOrEqual(0);
    await page.click(`.findings tr[data-finding] >> nth=${i}`);
    const rows = await page.$$eval('#cases tr[data-index] td:nth-child(2)', (tds: Element[]) => tds.map((t) => t.textContent));
    expect(rows).toEqual(['bulk/gen:1']);
    await page.click('#cases tr[data-index]');
    expect(await page.textContent('#detail-explanation')).toContain('observed = reference with subnormal inputs and results kept (not flushed)');
    const out = await page.textContent('#detail-outputs');
    expect(out).toContain('0x00000002');
    expect(out).toContain('NOT allowed');
    expect(await page.$$eval('#detail-outputs mark', (ms: Element[]) => ms.length)).toBe(1);
    expect(await page.textContent('#detail')).toContain('UBLKRED.G.S.ADD.F32.RN');
    expect(await page.textContent('#detail-rules')).toContain('9.7.9.25.4.2');
  });

  it('the known deviation is its own finding with its expectation, and the expectations table shows it occurred', async () => {
    expect(await page.textContent('.findings')).toContain('bulk-keeps');
    expect(await page.textContent('#expectations')).toMatch(/bulk-keeps\s*occurred\s*1/);
  });

  it('a matrix cell filters by family, type and op', async () => {
    await page.click('#matrix td.cell[data-family="atom"][data-type="u32"][data-op="add"]');
    expect(await page.inputValue('#f-family')).toBe('atom');
    expect(await page.inputValue('#f-type')).toBe('u32');
    const n = await page.$$eval('#cases tr[data-index]', (trs: Element[]) => trs.length);
    expect(n).toBe(30);
  });

  it('ptxas evidence is shown as text, markup and all', async () => {
    await page.selectOption('#f-family', '');
    await page.selectOption('#f-type', '');
    await page.selectOption('#f-op', '');
    await page.selectOption('#f-verdict', 'compile-mismatch');
    await page.click('#cases tr[data-index]');
    expect(await page.textContent('#detail-ptxas')).toContain('<b>bold</b>');
    expect(await page.textContent('#detail')).toContain('<script>alert(2)</script>');
    expect(await page.$$eval('#detail b', (bs: Element[]) => bs.every((b) => b.textContent !== 'bold'))).toBe(true);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
if (!CHROMIUM)
  console.warn(
    "[skip] HTML browser tests: no Chromium at CHROMIUM_PATH, /usr/bin/chromium or /usr/bin/chromium-browser; run `npm run setup:browser` (installs Debian's chromium as root with apt-get, else says what to do) or set CHROMIUM_PATH",
  );
