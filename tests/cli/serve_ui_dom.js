// Runs the web page's script (src/serve/ui/index.html) in Node against a
// live `deltac serve`, with a minimal stand-in for the DOM (no jsdom or
// browser is available offline): the page's own fetch calls go to the real
// server. Checks that it lists the tables, renders info, summary, rows and
// history, shows a version's change rows on a click (and a range on a
// shift-click), applies a filter, builds the MERGE snippet, and in live mode
// prepends a commit written while it follows the stream.
//
// usage: node serve_ui_dom.js PAGE BASE_URL TABLE APPEND_COMMAND...
//        UI_TOKEN=secret node serve_ui_dom.js PAGE BASE_URL TABLE   (token prompt, then the panels)
'use strict';
const fs = require('fs');
const { execFileSync } = require('child_process');
const [page, base, tableName, ...appendCmd] = process.argv.slice(2);

const byId = new Map();
class El {
  constructor(tag, text) {
    this.tag = tag; this.children = []; this.parent = null; this.listeners = {}; this.dataset = {};
    this.hidden = false; this.value = ''; this.checked = false; this._text = text || '';
    const cls = new Set();
    this.classList = { add: (c) => cls.add(c), remove: (c) => cls.delete(c), contains: (c) => cls.has(c),
      toggle: (c, on) => { if (on === undefined ? !cls.has(c) : on) cls.add(c); else cls.delete(c); } };
    this._cls = cls;
  }
  set className(v) { this._cls.clear(); for (const c of v.split(/\s+/)) if (c) this._cls.add(c); }
  setAttribute(k, v) { if (k.startsWith('data-')) this.dataset[k.slice(5)] = String(v); if (k === 'id') byId.set(v, this); }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  fire(t, ev = {}) { for (const f of this.listeners[t] || []) f(Object.assign({ preventDefault() {} }, ev)); }
  _adopt(k) { const n = k instanceof El ? k : new El('#text', String(k)); if (n.parent) n.parent._remove(n); n.parent = this; return n; }
  _remove(n) { this.children = this.children.filter((c) => c !== n); }
  append(...ks) { for (const k of ks) this.children.push(this._adopt(k)); }
  prepend(...ks) { this.children.unshift(...ks.map((k) => this._adopt(k))); }
  replaceChildren(...ks) { for (const c of this.children) c.parent = null; this.children = []; this.append(...ks); }
  after(n) { const p = this.parent; const i = p.children.indexOf(this); const a = p._adopt(n); p.children.splice(i + 1, 0, a); }
  get rows() { return this.children.filter((c) => c.tag === 'tr'); }
  get textContent() { return this.tag === '#text' ? this._text : this.children.map((c) => c.textContent).join(''); }
  set textContent(v) { this.children = []; if (v !== '') this.append(String(v)); }
  all() { return this.children.flatMap((c) => [c, ...c.all()]); }
  find(tag) { return this.all().filter((c) => c.tag === tag); }
}
const root = new El('html');
const html = fs.readFileSync(page, 'utf8');
for (const [, tag, id] of html.matchAll(/<(\w+)[^>]*\bid="([\w-]+)"/g)) { const e = new El(tag); e.setAttribute('id', id); root.append(e); }
const document = {
  getElementById: (id) => byId.get(id) || null,
  createElement: (t) => new El(t),
  createRange: () => ({ selectNodeContents() {} }),
  // the page's only selectors: "nav button" and "#summary tr[data-v]"
  querySelectorAll: (sel) => {
    const m = sel.match(/(\w+)(\[data-(\w+)\])?$/);
    return root.all().filter((e) => e.tag === m[1] && (!m[3] || m[3] in e.dataset));
  },
};
const store = new Map();
const ctx = {
  document, Node: El, location: { hash: '#' + tableName, origin: base },
  sessionStorage: { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, v), removeItem: (k) => store.delete(k) },
  fetch: (path, opts) => fetch(base + path, opts), navigator: {}, getSelection: () => ({ removeAllRanges() {}, addRange() {} }),
  setTimeout, AbortController, TextDecoder, console, Promise, JSON, Math, Object, String, Error, encodeURIComponent, decodeURIComponent,
};
const script = html.match(/<script>([\s\S]*?)<\/script>/)[1];
new Function(...Object.keys(ctx), script)(...Object.values(ctx));

const $ = (id) => byId.get(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, cond, ms = 8000) {
  for (let t = 0; t < ms; t += 50) { if (cond()) return; await sleep(50); }
  throw new Error('timed out waiting for ' + what);
}
const dataRows = (id) => { const t = $(id).find('table')[0]; return t ? t.rows.length - 1 : 0; };
const headerOf = (id) => $(id).find('table')[0].rows[0].children.map((c) => c.textContent);
const out = {};
(async () => {
  // UI_TOKEN: the server wants a token; the page must ask for it, then load with it
  if (process.env.UI_TOKEN) {
    await until('token prompt', () => !$('login').hidden);
    out.prompted = $('tables').find('button').length === 0;
    $('token').value = process.env.UI_TOKEN;
    $('loginform').fire('submit');
  }
  await until('tables', () => $('tables').find('button').length > 0);
  out.tables = $('tables').find('button').map((b) => b.dataset.t);
  await until('summary', () => byId.get('summary') && dataRows('t-rows') > 0 && dataRows('t-history') > 0 && $('t-name').textContent);
  out.name = $('t-name').textContent;
  out.info = $('t-info').textContent;
  out.schemaColumns = dataRows('t-schema');
  const summary = byId.get('summary');
  out.summaryVersions = summary.rows.slice(1).map((r) => +r.dataset.v);
  out.rows = dataRows('t-rows');
  out.history = dataRows('t-history');
  if (process.env.UI_TOKEN) { console.log(JSON.stringify(out)); process.exit(0); }
  // a click on a version shows its change rows (the newest, an OPTIMIZE, has none: the MERGE
  // before it); shift-click on the oldest extends the range
  summary.rows[2].fire('click');
  await until('changes', () => !$('changes-sec').hidden && dataRows('t-changes') > 0);
  out.changesTitle = $('changes-title').textContent;
  out.changeRows = dataRows('t-changes');
  out.changeHeader = headerOf('t-changes');
  summary.rows[summary.rows.length - 1].fire('click', { shiftKey: true });
  await until('range', () => /versions/.test($('changes-title').textContent) && dataRows('t-changes') > out.changeRows);
  out.rangeTitle = $('changes-title').textContent;
  out.rangeRows = dataRows('t-changes');
  out.merge = $('snippets').find('pre')[0].textContent;
  $('changesfilter').value = "_change_type = 'delete'";
  $('changesform').fire('submit');
  await until('filtered changes', () => dataRows('t-changes') > 0 && dataRows('t-changes') < out.rangeRows);
  const types = $('t-changes').find('td').filter((td) => td.classList.contains('ct-delete') || td.classList.contains('ct-insert'));
  out.filteredTypes = [...new Set(types.map((td) => td.textContent))];
  $('rowsfilter').value = 'amount >';
  $('rowsform').fire('submit');
  await until('filter error', () => $('rowserr').textContent !== '');
  out.badFilter = $('rowserr').textContent;
  // live: a commit written while following the stream is prepended
  $('live').checked = true;
  $('live').fire('change');
  await until('live', () => $('livedot').classList.contains('on'));
  execFileSync(appendCmd[0], appendCmd.slice(1), { stdio: 'ignore' });
  const before = out.summaryVersions[0];
  await until('live commit', () => +byId.get('summary').rows[1].dataset.v === before + 1);
  out.liveVersion = +byId.get('summary').rows[1].dataset.v;
  $('live').checked = false;
  $('live').fire('change');
  console.log(JSON.stringify(out));
  process.exit(0);
})().catch((e) => { console.log(JSON.stringify(Object.assign(out, { error: String(e.stack || e) }))); process.exit(1); });
