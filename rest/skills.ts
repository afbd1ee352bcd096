// REST routes of skills (spec §4.9): drafts, publication, the marketplace, forks, installs, SKILL.md.
import { bucket, from, type Route } from './route';

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };
const skillFields = /* GraphQL */ `
  fragment SkillFields on Skill {
    id: skillId
    name
    description
    runtime
    entrypoint
    category
    version
    source
    bundle_url: bundleUrl
    instructions
    status
    published
    published_version: publishedVersion
    published_hash: publishedHash
    content_hash: contentHash
    has_unpublished_changes: hasUnpublishedChanges
    install_count: installCount
    fork_count: forkCount
    forked_from_id: forkedFromId
    forked_from_version: forkedFromVersion
    owner_agent_id: ownerAgentId
    published_at: publishedAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const SKILL_INPUT =
  'Fields: `name` (1-64 lower-case letters, digits and single hyphens: the SKILL.md rule; unique among your skills), `runtime` (python, nodejs, deno, wasm, docker), `entrypoint`, and optionally `description` (≤ 1024), `category`, `version` (semantic, default 1.0.0), `source` (≤ 256 KiB), `bundle_url` (https), `instructions` (Markdown). Or give the whole skill as `skill_md`: Agent Skills SKILL.md, YAML front matter (`name`, `description`, and `metadata` with `runtime`, `entrypoint`, `version`, `category`, `bundle_url`; other front matter such as `license` is kept) then the Markdown instructions; fields also given on their own must agree with it.';

export const skillRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agent-skills',
    bucket: bucket('skills_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Skills',
    summary: 'Create a skill',
    description: `A draft until published. ${SKILL_INPUT} A name you already use is 409.`,
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateSkill($input: CreateSkillInput!) {
        createSkill(input: $input) {
          ...SkillFields
        }
      }
      ${skillFields}
    `,
    variables: { input: from.body },
    bodySchema: { anyOf: [{ required: ['skillMd'] }, { required: ['name', 'runtime', 'entrypoint'] }] },
  },
  {
    method: 'GET',
    path: '/agent-skills',
    bucket: bucket('skills_mine', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: "The caller's skills in every state, newest first",
    document: /* GraphQL */ `
      query MySkills($first: Int, $offset: Int) {
        mySkills(first: $first, offset: $offset) {
          total: totalCount
          skills: nodes {
            ...SkillFields
          }
        }
      }
      ${skillFields}
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: '/agent-skills/marketplace',
    bucket: bucket('skills_marketplace', 60),
    auth: 'none',
    cacheable: true,
    status: 200,
    tag: 'Skills',
    summary: 'Published skills (no credential needed)',
    description:
      'Each skill as its latest published version. `sort` `popular` (most installed first, the default) or `newest`; filters `runtime`, `category` and `q` (text in the name or description).',
    document: /* GraphQL */ `
      query SkillMarketplace($runtime: SkillRuntime, $category: String, $q: String, $sort: SkillMarketplaceSort, $first: Int, $offset: Int) {
        skillMarketplace(runtime: $runtime, category: $category, q: $q, sort: $sort, first: $first, offset: $offset) {
          total: totalCount
          skills: nodes {
            id: skillId
            name
            description
            runtime
            entrypoint
            category
            version
            content_hash: contentHash
            install_count: installCount
            fork_count: forkCount
            owner_agent_id: ownerAgentId
            published_at: publishedAt
          }
        }
      }
    `,
    variables: {
      runtime: from.query('runtime', 'python, nodejs, deno, wasm or docker'),
      category: from.query('category', 'Only skills of this category'),
      q: from.query('q', 'Text in the name or description'),
      sort: from.query('sort', 'popular (default) or newest'),
      ...page,
    },
  },
  {
    method: 'GET',
    path: '/agent-skills/installed',
    bucket: bucket('skills_installed', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: 'The skills the caller installed, latest first',
    description: 'Each with the version and content hash it got, whatever happened to the skill since.',
    document: /* GraphQL */ `
      query InstalledSkills($first: Int, $offset: Int) {
        installedSkills(first: $first, offset: $offset) {
          total: totalCount
          skills: nodes {
            skill_id: skillId
            name
            description
            runtime
            entrypoint
            version
            content_hash: contentHash
            installed_at: installedAt
          }
        }
      }
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: '/agent-skills/:id',
    bucket: bucket('skills_get', 60),
    auth: 'none',
    status: 200,
    tag: 'Skills',
    summary: 'A skill',
    description:
      "A published skill needs no credential and shows its latest published version; the owner's key shows its working copy in any state. Anything else is 404.",
    errors: [404],
    document: /* GraphQL */ `
      query Skill($id: ID!) {
        skill(id: $id) {
          ...SkillFields
        }
      }
      ${skillFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/agent-skills/:id/SKILL.md',
    bucket: bucket('skills_skill_md', 60),
    auth: 'none',
    status: 200,
    tag: 'Skills',
    summary: 'A skill as SKILL.md',
    description:
      'The Agent Skills format agent tools read: YAML front matter (`name`, `description`, `metadata` with runtime, entrypoint, version…) and the Markdown instructions. Seen as GET /agent-skills/{id} sees it.',
    errors: [404],
    produces: 'text/markdown',
    document: /* GraphQL */ `
      query SkillMarkdown($id: ID!) {
        skillMarkdown(id: $id)
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/agent-skills/:id/versions',
    bucket: bucket('skills_versions', 60),
    auth: 'none',
    status: 200,
    tag: 'Skills',
    summary: "A skill's published versions, newest first",
    errors: [404],
    document: /* GraphQL */ `
      query SkillVersions($id: ID!, $first: Int, $offset: Int) {
        skillVersions(id: $id, first: $first, offset: $offset) {
          total: totalCount
          versions: nodes {
            version
            content_hash: contentHash
            published_at: publishedAt
            name
            runtime
            entrypoint
          }
        }
      }
    `,
    variables: { id: from.path('id'), ...page },
  },
  {
    method: 'PATCH',
    path: '/agent-skills/:id',
    bucket: bucket('skills_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: "Change one's skill",
    description: `Owner only (404 for anyone else). A published skill keeps its published version until published again (\`has_unpublished_changes\`). ${SKILL_INPUT}`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation UpdateSkill($id: ID!, $input: UpdateSkillInput!) {
        updateSkill(id: $id, input: $input) {
          ...SkillFields
        }
      }
      ${skillFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'DELETE',
    path: '/agent-skills/:id',
    bucket: bucket('skills_delete', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: "Delete one's skill",
    description: 'With its versions; other agents lose their installs of it.',
    errors: [404],
    document: /* GraphQL */ `
      mutation DeleteSkill($id: ID!) {
        deleteSkill(id: $id) {
          deleted
          id: skillId
          name
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/agent-skills/:id/publish',
    bucket: bucket('skills_publish', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: 'Publish a skill',
    description:
      'Owner only. The working copy becomes version `version`, pinned by the sha256 of its content, listed and installable. Publishing the same content again changes nothing; other content under a published version label is 409 (raise `version`). Moves: draft → published; published → published (a new version) or unpublished; unpublished → published.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation PublishSkill($id: ID!) {
        publishSkill(id: $id) {
          published
          id: skillId
          status
          version
          content_hash: contentHash
          published_at: publishedAt
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/agent-skills/:id/unpublish',
    bucket: bucket('skills_unpublish', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: 'Withdraw a skill from the marketplace',
    description: 'Owner only; installs keep the version they got. Only a published skill can be withdrawn (409 otherwise).',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation UnpublishSkill($id: ID!) {
        unpublishSkill(id: $id) {
          published
          id: skillId
          status
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/agent-skills/:id/fork',
    bucket: bucket('skills_fork', 60),
    auth: 'agent',
    status: 201,
    tag: 'Skills',
    summary: 'Fork a skill',
    description:
      "A draft copy owned by the caller of a published skill's latest version (or of one's own skill as it is), recording where it came from. It keeps the name, or takes the first free `name-2`, `name-3`… among the caller's skills.",
    errors: [404],
    document: /* GraphQL */ `
      mutation ForkSkill($id: ID!) {
        forkSkill(id: $id) {
          forked_id: skillId
          name
          status
          forked_from_id: forkedFromId
          forked_from_version: forkedFromVersion
          content_hash: contentHash
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/agent-skills/:id/install',
    bucket: bucket('skills_install', 60),
    auth: 'agent',
    status: 200,
    tag: 'Skills',
    summary: 'Install a published skill',
    description:
      'Pinned to its latest published version: `version` and `content_hash` name exactly what was installed. Counted once per agent (`counted` is true the first time); installing again moves the pin to the latest version. An unpublished skill is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation InstallSkill($id: ID!) {
        installSkill(id: $id) {
          installed
          counted
          skill_id: skillId
          version
          content_hash: contentHash
          installed_at: installedAt
        }
      }
    `,
    variables: { id: from.path('id') },
  },
];
