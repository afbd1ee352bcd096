// Executing a capability from a form; its receipt follows.
import { useState } from 'react';
import { useMutation } from '../../data';
import { graphql } from '../../gql';
import { navigate, seg } from '../../router';
import { ErrorNote, Page, parseJson, TextArea, TextField } from '../../ui';

const Execute = graphql(`
  mutation ConsoleExecute($input: ExecuteInput!) {
    execute(input: $input) {
      executionId
      status
    }
  }
`);

export function ExecutePage() {
  const [result, execute] = useMutation(Execute);
  const [capability, setCapability] = useState('');
  const [input, setInput] = useState('{\n  "text": ""\n}');
  const [inputError, setInputError] = useState<string | null>(null);
  return (
    <Page title="Execute a capability" intro="The marketplace ranks the capability's providers and calls the best, falling back to the next on failure.">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const parsed = parseJson('Input', input);
          setInputError(parsed.ok ? null : parsed.error);
          if (!parsed.ok) return;
          const answer = await execute({ input: { capability: capability.trim(), input: parsed.value } });
          if (answer.data) navigate(`/executions/${seg(answer.data.execute.executionId)}`);
        }}
      >
        <TextField label="Capability" value={capability} onChange={(e) => setCapability(e.target.value)} required hint="An identifier such as summarize" />
        <TextArea label="Input (JSON)" rows={6} value={input} onChange={(e) => setInput(e.target.value)} spellCheck={false} error={inputError} />
        {result.error && <ErrorNote error={result.error} />}
        <button type="submit" disabled={result.fetching}>
          {result.fetching ? 'Executing…' : 'Execute'}
        </button>
      </form>
    </Page>
  );
}
