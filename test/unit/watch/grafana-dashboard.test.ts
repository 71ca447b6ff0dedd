import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DOCS = join(__dirname, '..', '..', '..', 'docs', 'grafana');

interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(DOCS, 'hookd-dashboard.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
};
const readme = readFileSync(join(DOCS, 'README.md'), 'utf8');

/** The metric names of a PromQL expression: an identifier right before a `{` or a `[`. */
function metrics(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)].map((m) => m[1]!);
}

describe('the Grafana dashboard in docs/grafana', () => {
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  it('has panels for sessions, cost, guards fired and delivery health, each on the Prometheus input', () => {
    expect(dashboard.uid).toBe('hookd-overview');
    const titles = panels.map((p) => p.title);
    for (const title of ['Sessions', 'Cost', 'Guards fired', 'Deliveries by outcome', 'Outbox pending'])
      expect(titles).toContain(title);
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
  });

  it('queries only the metrics its README lists', () => {
    const queried = new Set(panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metrics(t.expr))));
    expect(queried.size).toBeGreaterThan(5);
    for (const name of queried) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      expect(readme, name).toContain(`\`${family}\``);
    }
    const agent = dashboard.templating.list.find((v) => v.name === 'agent');
    expect(agent?.definition).toBe('label_values(hookd_sessions_total, hookd_agent)');
  });
});
