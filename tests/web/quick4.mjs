import puppeteer from 'puppeteer-core';
import fs from 'fs';
const dir = fs.mkdtempSync('/tmp/chr-');
const b = await puppeteer.launch({ executablePath: '/usr/bin/chromium', userDataDir: dir,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const p = await b.newPage();
await p.setViewport({ width: 960, height: 900 });
p.on('console', (m) => { if (m.type() !== 'warn') console.log('console', m.type(), m.text()); });
p.on('pageerror', (e) => console.log('pageerror', e.message));
await p.goto('http://127.0.0.1:8765/race/' + (process.argv[2] || ''), { waitUntil: 'load' });
await p.waitForFunction('window.race && window.race.ready', { timeout: 60000 });
await new Promise((r) => setTimeout(r, 3000));
console.log(await p.evaluate(() => window.race.measure({ n: 100, frames: 20, rounds: 5 })));
console.log(await p.evaluate(() => window.race.profile(100, 50)));
await p.screenshot({ path: '/tmp/shot_race.png' });
await b.close();
