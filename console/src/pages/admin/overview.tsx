// The administrator's overview: the marketplace's figures, and its revenue by day and by capability.
import { useState } from 'react';
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { Facts, Loaded, Money, Page, Section, SelectField, Table } from '../../ui';

const Overview = graphql(`
  query ConsoleAdminOverview($days: Int) {
    adminStats {
      agents {
        total
        active
        suspended
        banned
        subAgents
      }
      services {
        total
        active
      }
      executions {
        total
        succeeded
        failed
        last30d
      }
      disputes {
        total
        open
      }
      subKeys {
        total
        live
      }
      capabilities
    }
    adminRevenue(days: $days) {
      days
      totals {
        executions
        paidExecutions
        grossCents
        refundsCents
        netCents
      }
      fees {
        asset
        feeBps
        fees
        refunded
        net
      }
      byDay {
        day
        grossCents
        refundsCents
        netCents
        fees
      }
      byCapability {
        capability
        executions
        grossCents
        netCents
      }
    }
  }
`);

export function AdminPage() {
  const [days, setDays] = useState('30');
  const [result] = useQuery({ query: Overview, variables: { days: Number(days) } });
  return (
    <Page title="Administration">
      <Loaded result={result}>
        {({ adminStats: s, adminRevenue: r }) => (
          <>
            <Facts
              items={[
                ['Agents', `${s.agents.total.toLocaleString()} (${s.agents.active} active, ${s.agents.suspended} suspended, ${s.agents.banned} banned)`],
                ['Services', `${s.services.total.toLocaleString()} (${s.services.active} active)`],
                ['Executions', `${s.executions.total.toLocaleString()} (${s.executions.last30d.toLocaleString()} in 30 days)`],
                ['Disputes', `${s.disputes.total} (${s.disputes.open} open)`],
                ['Sub-keys', `${s.subKeys.live} live of ${s.subKeys.total}`],
                ['Capabilities', s.capabilities],
              ]}
            />
            <Section title="Revenue">
              <SelectField
                label="Over"
                value={days}
                options={[
                  ['7', 'The last 7 days'],
                  ['30', 'The last 30 days'],
                  ['90', 'The last 90 days'],
                ]}
                onChange={(e) => setDays(e.target.value)}
              />
              <Facts
                items={[
                  ['Gross', <Money key="g" cents={r.totals.grossCents} />],
                  ['Refunds', <Money key="r" cents={r.totals.refundsCents} />],
                  ['Net', <Money key="n" cents={r.totals.netCents} />],
                  ['Paid executions', `${r.totals.paidExecutions.toLocaleString()} of ${r.totals.executions.toLocaleString()}`],
                  ['Fees', `${r.fees.fees} ${r.fees.asset} at ${(r.fees.feeBps / 100).toFixed(2)}%`],
                ]}
              />
              <Table
                caption="Revenue by day"
                rows={r.byDay}
                rowKey={(d) => d.day}
                columns={[
                  { label: 'Day', cell: (d) => d.day },
                  { label: 'Gross', cell: (d) => <Money cents={d.grossCents} />, numeric: true },
                  { label: 'Refunds', cell: (d) => <Money cents={d.refundsCents} />, numeric: true },
                  { label: 'Net', cell: (d) => <Money cents={d.netCents} />, numeric: true },
                  { label: 'Fees', cell: (d) => d.fees, numeric: true },
                ]}
              />
            </Section>
            <Section title="Revenue by capability">
              <Table
                caption="Revenue by capability"
                rows={r.byCapability}
                rowKey={(c) => c.capability}
                columns={[
                  { label: 'Capability', cell: (c) => <Link to={`/capabilities/${seg(c.capability)}`}>{c.capability}</Link> },
                  { label: 'Executions', cell: (c) => c.executions.toLocaleString(), numeric: true },
                  { label: 'Gross', cell: (c) => <Money cents={c.grossCents} />, numeric: true },
                  { label: 'Net', cell: (c) => <Money cents={c.netCents} />, numeric: true },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
