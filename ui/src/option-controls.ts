/**
 * The upload form's controls for the request options, built from the one option table
 * (src/jobs/option-table.ts): each control's label, hint and default come from there, and each says
 * which value, if any, its option sends (nothing when left at the API's default).
 */
import { OPTION_TABLE, type OptionControl } from '../../src/jobs/option-table.js';
import { field, h, option } from './dom.js';

export interface Control {
  el: HTMLElement;
  /** The input itself (a checkbox's, for the form's own rules). */
  input: HTMLInputElement | HTMLSelectElement;
  /** The field's value to send; undefined: not sent. */
  value(): string | undefined;
}

function control(name: string, spec: Exclude<OptionControl, { control: 'kinds' }>, checked: boolean): Control {
  switch (spec.control) {
    case 'checkbox': {
      const input = h('input', { type: 'checkbox', name, checked });
      const el = h('label', { class: 'check' }, input, spec.label, spec.hint ? h('small', { class: 'hint' }, ` ${spec.hint}`) : null);
      // Sent only when it differs from the default (numtrans=false, diarize=true, …).
      return { el, input, value: () => (input.checked === checked ? undefined : String(input.checked)) };
    }
    case 'count':
    case 'text': {
      const input = spec.control === 'count'
        ? h('input', { type: 'number', name, min: 1, max: 10, step: 1, inputmode: 'numeric', placeholder: spec.placeholder, size: 4 })
        : h('input', { type: 'text', name, placeholder: spec.placeholder, autocomplete: 'off' });
      return { el: field(spec.label, input, spec.hint), input, value: () => input.value.trim() || undefined };
    }
    case 'select': {
      const input = h('select', { name }, spec.choices.map(([v, text], i) => option(v, text, i === 0)));
      return { el: field(spec.label, input, spec.hint), input, value: () => input.value || undefined };
    }
  }
}

/** A control per option the form offers, by option name (the kinds are the form's own: one box per kind). */
export function optionControls(): Record<string, Control> {
  const out: Record<string, Control> = {};
  for (const o of OPTION_TABLE) {
    const ui: OptionControl | undefined = 'ui' in o ? o.ui : undefined;
    if (ui && ui.control !== 'kinds') out[o.name] = control(o.name, ui, 'default' in o && o.default === true);
  }
  return out;
}

/** The label of an option's control in the table (the kinds' legend). */
export function optionLabel(name: string): string {
  const o = OPTION_TABLE.find((x) => x.name === name);
  return o && 'ui' in o ? o.ui.label : name;
}
