import { fork } from 'node:child_process';
import http from 'node:http';
const child = fork('/tmp/sp/server.mjs');
const port = await new Promise((r) => child.once('message', r));
const url = `http://127.0.0.1:${port}/hook`;
const body = JSON.stringify({ version: 1, id: 'x', notification: { title: 'done', body: 'x'.repeat(300) } });
const headers = { 'content-type': 'application/json', 'user-agent': 'hookd/0.1.0', 'x-hookd-delivery': 'a/0/ops', 'idempotency-key': 'a/0/ops', 'x-hookd-timestamp': '1' };
const agent = new http.Agent({ keepAlive: true });
function viaHttp() {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
      let t = ''; res.setEncoding('utf8'); res.on('data', (c) => (t += c)); res.on('end', () => resolve(Number(t)));
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function viaFetch() {
  const r = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(10000) });
  return Number(await r.text());
}
const res = { fetch: [], http: [] };
for (let i = 0; i < 300; i++) {
  for (const [k, f] of [['fetch', viaFetch], ['http', viaHttp]]) {
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.timeOrigin + performance.now();
    const arrived = await f();
    const t1 = performance.timeOrigin + performance.now();
    if (i >= 20) res[k].push([arrived - t0, t1 - t0]);
  }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)].toFixed(3); };
for (const [k, v] of Object.entries(res)) console.log(k, 'arrive', med(v.map((x) => x[0])), 'done', med(v.map((x) => x[1])));
child.kill();
