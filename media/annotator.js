// The annotator view (plain JS, no framework). It keeps the rows the extension sends, filters them,
// renders a page of the matching ones, and posts back what it rendered (the extension's tests read
// that instead of this DOM). Messages: src/shared/annotator-protocol.ts.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const PAGE = 200;
  const FILTERS = [
    { id: 'language', title: 'Language', of: (r) => r.language },
    { id: 'repository', title: 'Repository', of: (r) => r.repository },
    { id: 'outcome', title: 'Outcome', of: (r) => r.outcome },
    { id: 'category', title: 'Failure category', of: (r) => r.category || 'none' },
  ];
  const OUTCOME_TEXT = { passed: 'passed', failed: 'failed', nocompile: 'does not compile' };
  const CATEGORY_NAMES = {};

  const saved = vscode.getState() || {};
  const state = {
    runDir: '',
    title: '',
    labels: [],
    rows: new Map(),
    loading: true,
    skipped: 0,
    filters: saved.filters || {},
    selected: saved.selected || null,
    limit: PAGE,
    message: '',
  };

  const $ = (id) => document.getElementById(id);
  const el = (tag, props, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'className') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role' || k === 'title' || k === 'for' || k === 'id' || k === 'type') e.setAttribute(k, v === true ? '' : String(v));
      else e[k] = v;
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  };

  function matches(row, except) {
    return FILTERS.every((f) => f.id === except || !state.filters[f.id] || f.of(row) === state.filters[f.id]);
  }

  /** Counts per value over the rows the other filters let through, so each number is what picking it gives. */
  function counts() {
    const out = {};
    for (const f of FILTERS) {
      out[f.id] = {};
      for (const r of state.rows.values()) {
        if (!matches(r, f.id)) continue;
        const v = f.of(r);
        out[f.id][v] = (out[f.id][v] || 0) + 1;
      }
    }
    return out;
  }

  function valueText(filter, value) {
    if (filter === 'outcome') return OUTCOME_TEXT[value] || value;
    if (filter === 'category') return value === 'none' ? 'no failure' : CATEGORY_NAMES[value] || value;
    return value;
  }

  function renderFilters(c) {
    const box = $('filters');
    box.replaceChildren();
    for (const f of FILTERS) {
      const select = el('select', { id: `filter-${f.id}`, 'data-filter': f.id });
      const all = Object.values(c[f.id]).reduce((a, b) => a + b, 0);
      select.append(el('option', { value: '', text: `All (${all})` }));
      const values = Object.keys(c[f.id]).sort();
      if (state.filters[f.id] && !values.includes(state.filters[f.id])) values.push(state.filters[f.id]);
      for (const v of values) select.append(el('option', { value: v, text: `${valueText(f.id, v)} (${c[f.id][v] || 0})` }));
      select.value = state.filters[f.id] || '';
      select.addEventListener('change', () => setFilter(f.id, select.value));
      box.append(el('label', { className: 'filter', for: select.id }, el('span', { text: f.title }), select));
    }
    const any = FILTERS.some((f) => state.filters[f.id]);
    const clear = el('button', { type: 'button', id: 'clear-filters', className: 'secondary', text: 'Clear filters', disabled: !any });
    clear.addEventListener('click', () => {
      state.filters = {};
      render();
    });
    box.append(clear);
  }

  function setFilter(id, value) {
    if (value) state.filters[id] = value;
    else delete state.filters[id];
    state.limit = PAGE;
    render();
  }

  function renderList(matching) {
    const list = $('list');
    list.replaceChildren();
    if (!state.rows.size) {
      list.append(el('p', { className: 'empty', text: state.loading ? 'Reading the results…' : 'This run holds no results.' }));
      return [];
    }
    if (!matching.length) {
      list.append(el('p', { className: 'empty', text: 'No result matches these filters.' }));
      return [];
    }
    const shown = matching.slice(0, state.limit);
    const head = el('tr', null, ...['Outcome', 'Function', 'Language', 'Repository', 'Failure category', 'Coverage', 'Why', 'Annotation'].map((h) => el('th', { text: h, scope: 'col' })));
    const body = el('tbody');
    for (const r of shown) {
      const tr = el(
        'tr',
        { 'data-key': r.key, tabIndex: 0, className: r.key === state.selected ? 'selected' : '', 'aria-selected': r.key === state.selected ? 'true' : 'false' },
        el('td', { className: 'nowrap' }, el('span', { className: `badge ${r.outcome}`, text: OUTCOME_TEXT[r.outcome] })),
        el(
          'td',
          { title: r.filePath },
          el('span', { className: 'fn', text: r.functionName }),
          r.suite ? el('span', { className: 'tag suite', text: `suite of ${r.suite} tests`, title: 'The first test and the tests Improve kept, merged into one file and scored as one test' }) : null,
          el('span', { className: 'dim file', text: r.filePath }),
        ),
        el('td', { className: 'nowrap', text: r.language }),
        el('td', { className: 'nowrap', text: r.repository }),
        el('td', { text: r.categoryLabel || '' }),
        el('td', { className: 'num', text: r.coverage === null ? '—' : `${r.coverage}%` }),
        el('td', { className: 'reason', text: r.reason || '', title: r.reason || undefined }),
        el('td', null, r.annotation ? el('span', { className: 'tag', text: r.annotation.label, title: r.annotation.note || undefined }) : null),
      );
      tr.addEventListener('click', () => select(r.key));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          select(r.key);
        }
      });
      body.append(tr);
    }
    list.append(el('table', { role: 'grid' }, el('thead', null, head), body));
    if (matching.length > shown.length) {
      const more = el('button', { type: 'button', id: 'more', className: 'secondary', text: `Show ${Math.min(PAGE, matching.length - shown.length)} more (${matching.length - shown.length} not shown)` });
      more.addEventListener('click', () => {
        state.limit += PAGE;
        render();
      });
      list.append(more);
    }
    return shown;
  }

  function renderDetail() {
    const box = $('detail');
    const r = state.selected && state.rows.get(state.selected);
    if (!r) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const open = (what, text) => {
      const b = el('button', { type: 'button', 'data-action': `open-${what}`, text });
      b.addEventListener('click', () => vscode.postMessage({ type: 'open', key: r.key, what }));
      return b;
    };
    const label = el('select', { id: 'label' }, el('option', { value: '', text: '(no label)' }), ...state.labels.map((l) => el('option', { value: l, text: l })));
    label.value = r.annotation ? r.annotation.label : '';
    const note = el('textarea', { id: 'note', rows: 4, placeholder: 'Why (for example: expects 3 but the function returns 4 for an empty cart)' });
    note.value = r.annotation ? r.annotation.note : '';
    const save = el('button', { type: 'button', id: 'save', 'data-action': 'save', text: 'Save annotation' });
    save.addEventListener('click', () => vscode.postMessage({ type: 'annotate', key: r.key, label: label.value || null, note: note.value }));
    const savedAt = r.annotation ? el('span', { className: 'dim', text: `saved ${new Date(r.annotation.time).toLocaleString()}` }) : null;
    // replaceChildren writes a null as the text "null": the parts a result does not have are left out.
    const parts = [
      el('h2', null, el('span', { className: `badge ${r.outcome}`, text: OUTCOME_TEXT[r.outcome] }), ` ${r.functionName}`),
      el('p', { className: 'dim', text: `${r.filePath} · ${r.language} · ${r.suite ? `suite of ${r.suite} tests from Improve, after test ${r.sample + 1}` : `test ${r.sample + 1}`}${r.round > 0 ? ` (repair ${r.round})` : ''}${r.model ? ` · ${r.model}` : ''}` }),
      r.reason ? el('p', { className: 'why', text: r.reason }) : null,
      el('p', { text: r.executable ? `Coverage: ${r.covered} of ${r.executable} executable lines of the function (${r.coverage}%)` : 'Coverage: none measured' }),
      el('div', { className: 'actions' }, open('function', 'Open function'), open('test', 'Open test'), open('logs', 'Open logs'), open('transcript', 'Open transcript'), open('coverage', 'Show coverage')),
      el('h3', { text: 'Annotation' }),
      el('label', { for: 'label', className: 'field' }, el('span', { text: 'Label' }), label),
      el('label', { for: 'note', className: 'field' }, el('span', { text: 'Note' }), note),
      el('div', { className: 'actions' }, save, savedAt),
    ];
    box.replaceChildren(...parts.filter((p) => p !== null));
  }

  function select(key) {
    state.selected = key;
    render();
  }

  function render() {
    const c = counts();
    const matching = [...state.rows.values()].filter((r) => matches(r));
    $('title').textContent = state.title ? `Annotator: ${state.title}` : 'XRepoTest annotator';
    const done = state.rows.size;
    const annotated = [...state.rows.values()].filter((r) => r.annotation).length;
    $('status').textContent = state.message || (state.loading ? `Reading the results… ${done} so far` : `${done} results, ${matching.length} match, ${annotated} annotated${state.skipped ? `; ${state.skipped} lines were not results` : ''}`);
    $('export').disabled = state.loading || !state.rows.size;
    renderFilters(c);
    const shown = renderList(matching);
    renderDetail();
    vscode.setState({ filters: state.filters, selected: state.selected });
    vscode.postMessage({
      type: 'rendered',
      report: {
        filters: { ...state.filters },
        counts: c,
        total: state.rows.size,
        matching: matching.length,
        shown: shown.map((r) => ({ key: r.key, outcome: r.outcome, language: r.language, repository: r.repository, functionName: r.functionName, category: r.category, suite: r.suite || null, label: r.annotation ? r.annotation.label : null })),
        selected: state.selected && state.rows.has(state.selected) ? state.selected : null,
        loading: state.loading,
        theme: ['vscode-dark', 'vscode-light', 'vscode-high-contrast', 'vscode-high-contrast-light'].filter((t) => document.body.classList.contains(t)).join(' '),
      },
    });
  }

  // Rows arrive in pages while the run is read: render at most once per frame.
  let queued = false;
  function renderSoon() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      render();
    });
  }

  function automate(m) {
    const target = document.querySelector(m.selector);
    if (!target) {
      console.error(`annotator automation: no element ${m.selector}`);
      return;
    }
    if (m.action === 'set') {
      target.value = m.value || '';
      target.dispatchEvent(new Event('input', { bubbles: true }));
      target.dispatchEvent(new Event('change', { bubbles: true }));
    } else {
      target.click();
    }
  }

  window.addEventListener('message', (event) => {
    const m = event.data;
    switch (m.type) {
      case 'run':
        if (m.runDir !== state.runDir) state.rows.clear();
        state.runDir = m.runDir;
        state.title = m.title;
        if (m.labels.length) state.labels = m.labels;
        state.loading = true;
        state.message = '';
        renderSoon();
        break;
      case 'rows':
        for (const r of m.rows) {
          state.rows.set(r.key, r);
          if (r.category && r.categoryLabel) CATEGORY_NAMES[r.category] = r.categoryLabel;
        }
        if (m.done) {
          state.loading = false;
          state.skipped = m.skipped || 0;
        }
        renderSoon();
        break;
      case 'annotation': {
        const r = state.rows.get(m.key);
        if (r) r.annotation = m.annotation;
        state.message = m.annotation ? `Saved “${m.annotation.label}” for ${r ? r.functionName : m.key}` : 'Annotation cleared';
        render();
        state.message = '';
        break;
      }
      case 'exported':
        state.message = `Exported ${m.records} results (${m.annotated} annotated) to ${m.file}`;
        render();
        state.message = '';
        break;
      case 'error':
        state.message = `Error: ${m.message}`;
        render();
        state.message = '';
        break;
      case 'setFilters':
        state.filters = Object.fromEntries(Object.entries(m.filters).filter(([, v]) => v));
        state.limit = PAGE;
        render();
        break;
      case 'select':
        select(m.key);
        break;
      case 'automation':
        automate(m);
        break;
    }
  });

  // The editor switches themes by changing the body's classes: report the new one.
  new MutationObserver(renderSoon).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  $('export').addEventListener('click', () => vscode.postMessage({ type: 'export' }));
  vscode.postMessage({ type: 'ready' });
})();
