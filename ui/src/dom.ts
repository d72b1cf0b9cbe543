/** A tiny element builder: h('button', { class: 'x', onclick }, 'text', child). No framework. */
type Child = Node | string | number | false | null | undefined | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

let ids = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix: string): string {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled form field: <div class="field"><label for>text</label>control</div>. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  if (!control.id) control.id = uid('f');
  const wrap = h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  if (hint) {
    const hid = uid('hint');
    control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), hid].filter(Boolean).join(' '));
    wrap.append(h('small', { id: hid, class: 'hint' }, hint));
  }
  return wrap;
}

export function option(value: string, text: string, selected = false): HTMLOptionElement {
  const o = h('option', { value }, text);
  o.selected = selected;
  return o;
}

/** Announces a message to screen readers through the page's live region. */
export function announce(message: string): void {
  const live = document.getElementById('live');
  if (live) live.textContent = message;
}
