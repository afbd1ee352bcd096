// The agent's sub-keys: provisioned, rotated (the old key valid for its grace period) and revoked, each new key shown once.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { ConfirmButton, ErrorNote, Loaded, Page, Paged, SecretOnce, Section, Status, TextField, Time, usePages } from '../../ui';

const Keys = graphql(`
  query ConsoleKeys($after: String) {
    myKeys(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        subKeyId
        hint
        serviceKey
        serviceName
        status
        permissions
        expiresAt
        gracePeriodEnds
        createdAt
      }
    }
  }
`);

const Provision = graphql(`
  mutation ConsoleProvisionKey($serviceKey: String!) {
    provisionSubKey(serviceKey: $serviceKey) {
      subKeyId
      subKey
    }
  }
`);

const Rotate = graphql(`
  mutation ConsoleRotateKey($id: ID!) {
    rotateSubKey(id: $id) {
      subKeyId
      newSubKey
      gracePeriodEnds
    }
  }
`);

const Revoke = graphql(`
  mutation ConsoleRevokeKey($id: ID!) {
    revokeSubKey(id: $id) {
      subKeyId
      revoked
    }
  }
`);

export function KeysPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Keys, variables: { after: pages.after } });
  const [provisioned, provision] = useMutation(Provision);
  const [rotated, rotate] = useMutation(Rotate);
  const [revoked, revoke] = useMutation(Revoke);
  const [serviceKey, setServiceKey] = useState('');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Page
      title="Keys"
      intro="Sub-keys: a key for one provider's service, with its permissions and rates. Rotating keeps the old key valid for its grace period."
    >
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <Section title="Provision a key">
        <form
          className="form inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await provision({ serviceKey: serviceKey.trim() });
            if (answer.data) {
              setSecret({ label: 'New sub-key', value: answer.data.provisionSubKey.subKey });
              setServiceKey('');
              reload();
            }
          }}
        >
          <TextField
            label="Service key"
            value={serviceKey}
            onChange={(e) => setServiceKey(e.target.value)}
            required
            hint="svc_… of the service the key is for"
          />
          <button type="submit" disabled={provisioned.fetching}>
            Provision
          </button>
        </form>
        {provisioned.error && <ErrorNote error={provisioned.error} />}
      </Section>
      {(rotated.error || revoked.error) && <ErrorNote error={(rotated.error ?? revoked.error)!} />}
      <Loaded result={result}>
        {({ myKeys }) => (
          <>
            <Paged
              connection={myKeys}
              pages={pages}
              caption="Your sub-keys"
              rowKey={(k) => k.subKeyId}
              columns={[
                { label: 'Key', cell: (k) => <code>…{k.hint}</code> },
                { label: 'Service', cell: (k) => <Link to={`/services/${seg(k.serviceKey)}`}>{k.serviceName}</Link> },
                { label: 'Status', cell: (k) => <Status value={k.status} /> },
                { label: 'Permissions', cell: (k) => k.permissions.join(', ') },
                { label: 'Expires', cell: (k) => <Time at={k.gracePeriodEnds ?? k.expiresAt} /> },
                {
                  label: 'Actions',
                  cell: (k) =>
                    k.status === 'active' ? (
                      <span className="actions">
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Rotate the key ending ${k.hint}`}
                          onClick={async () => {
                            const answer = await rotate({ id: k.subKeyId });
                            if (answer.data) {
                              setSecret({ label: 'Rotated sub-key', value: answer.data.rotateSubKey.newSubKey });
                              reload();
                            }
                          }}
                        >
                          Rotate
                        </button>
                        <ConfirmButton
                          question={`Revoke the key ending ${k.hint}? Calls with it fail at once.`}
                          label={`Revoke the key ending ${k.hint}`}
                          action={async () => {
                            await revoke({ id: k.subKeyId });
                            reload();
                          }}
                        >
                          Revoke
                        </ConfirmButton>
                      </span>
                    ) : null,
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
