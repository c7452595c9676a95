// Drives the dashboard in a real Chromium: 52 provider rows and no console errors, an outage that shows up
// without a reload (the page's own polling), the provider page and the API reference, with screenshots.
// Usage: node dashboard.mjs <service URL> <control URL> <artifacts dir> [docs screenshot path]
// POST <control URL>/outage takes OpenAI down in the simulator and runs one poll cycle.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [base, control, artifacts, docsShot] = process.argv.slice(2);
if (!base || !control || !artifacts) {
  console.error('usage: node dashboard.mjs <service URL> <control URL> <artifacts dir> [screenshot path]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

function check(ok, msg) {
  if (!ok) { throw new Error(msg); }
}

const browser = await chromium.launch({
  executablePath: process.env.SWITCHBOARD_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  timeout: 30_000,
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') { problems.push('console: ' + m.text()); } });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  // A fetch still in flight when the test navigates away (the dashboard polls /api/v1/health) is cancelled by
  // the browser (net::ERR_ABORTED): that is the navigation, not a failure of the service.
  page.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push('request failed: ' + r.url() + ' (' + r.failure()?.errorText + ')');
  });
  page.on('request', (r) => { if (!r.url().startsWith(base)) { problems.push('request outside the service: ' + r.url()); } });

  await page.goto(base + '/?refresh=1', { waitUntil: 'load' });
  const rows = await page.locator('tr[data-provider]').count();
  check(rows === 52, `${rows} provider rows, want 52`);
  const openai = page.locator('tr[data-provider="openai"]');
  check(await openai.getAttribute('data-status') === 'operational', 'openai is not operational at first');
  check(await page.locator('[data-count="operational"]').textContent() === '52', 'not 52 operational at first');
  const bars = await page.locator('tr[data-provider="openai"] .bar span').count();
  check(bars === 90, `${bars} uptime cells, want 90`);

  // Take OpenAI down and wait for the page's own polling to show it: no reload.
  const res = await fetch(control + '/outage', { method: 'POST', signal: AbortSignal.timeout(15_000) });
  check(res.ok, 'control: HTTP ' + res.status);
  let navigations = 0;
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) { navigations++; } });
  await page.waitForSelector('tr[data-provider="openai"][data-status="outage"]', { timeout: 10_000 });
  check(navigations === 0, 'the page reloaded');
  const pill = openai.locator('[data-field="status"]');
  check(await pill.textContent() === 'outage', 'status cell does not read outage');
  const bg = await pill.evaluate((el) => getComputedStyle(el).backgroundColor);
  check(bg === 'rgb(224, 93, 68)', 'outage cell colour is ' + bg + ', want red');
  check(await page.locator('[data-count="outage"]').textContent() === '1', 'outage count did not change');
  await page.screenshot({ path: join(artifacts, 'dashboard.png'), fullPage: false });
  if (docsShot) { await page.screenshot({ path: docsShot, fullPage: false }); }

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, 'dashboard-phone.png'), fullPage: false });
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.goto(base + '/providers/openai', { waitUntil: 'load' });
  check((await page.locator('h1').textContent()).includes('OpenAI'), 'provider page title');
  check(await page.locator('svg.chart').count() === 2, 'two charts expected');
  check(await page.locator('a[href="/api/v1/pricing?provider=openai"]').count() === 1, 'no pricing link');
  await page.screenshot({ path: join(artifacts, 'provider-openai.png'), fullPage: true });

  await page.goto(base + '/docs', { waitUntil: 'load' });
  await page.waitForSelector('.swagger-ui .opblock', { timeout: 15_000 });
  await page.screenshot({ path: join(artifacts, 'docs.png'), fullPage: false });

  const missing = await page.goto(base + '/providers/nope');
  check(missing.status() === 404, 'unknown provider answered ' + missing.status());
  // The 404 page itself logs a console error for its own status; drop it, and keep everything else.
  const real = problems.filter((p) => !(p.startsWith('console: Failed to load resource') && p.includes('404')));
  check(real.length === 0, 'problems:\n' + real.join('\n'));
  console.log('dashboard browser test: ok');
} finally {
  await browser.close();
}
