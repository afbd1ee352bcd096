// One published skill: its record and its instructions.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { Facts, Loaded, Page, Section, Time } from '../../ui';

const SkillDetail = graphql(`
  query ConsoleSkill($id: ID!) {
    skill(id: $id) {
      skillId
      name
      description
      runtime
      category
      entrypoint
      publishedVersion
      publishedAt
      installCount
      forkCount
      ownerAgentId
      instructions
    }
  }
`);

export function SkillPage({ id }: { id: string }) {
  const [result] = useQuery({ query: SkillDetail, variables: { id } });
  return (
    <Page title={result.data?.skill.name ?? 'Skill'}>
      <Loaded result={result}>
        {({ skill }) => (
          <>
            <p className="intro">{skill.description}</p>
            <Facts
              items={[
                ['Runtime', skill.runtime],
                ['Entry point', <code key="e">{skill.entrypoint}</code>],
                ['Category', skill.category],
                ['Version', skill.publishedVersion],
                ['Published', <Time key="p" at={skill.publishedAt} />],
                ['Installs', skill.installCount.toLocaleString()],
                ['Forks', skill.forkCount.toLocaleString()],
                [
                  'Owner',
                  <Link key="o" to={`/agents/${seg(skill.ownerAgentId)}`}>
                    the owner&apos;s record
                  </Link>,
                ],
              ]}
            />
            {skill.instructions && (
              <Section title="Instructions">
                <pre className="prose">{skill.instructions}</pre>
              </Section>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}
