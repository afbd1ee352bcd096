// urql's hooks, typed by the console's generated documents. The client preset keeps each document as a
// string (TypedDocumentString), which urql takes as a query string but cannot read the result's type from:
// these pass the string on and carry the document's result and variable types.
import {
  useMutation as useUrqlMutation,
  useQuery as useUrqlQuery,
  type AnyVariables,
  type UseMutationResponse,
  type UseQueryArgs,
  type UseQueryResponse,
} from 'urql';
import { graphql } from './gql';
import type { TypedDocumentString } from './gql/graphql';

type QueryArgs<R, V extends AnyVariables> = Omit<UseQueryArgs<V, R>, 'query'> & { query: TypedDocumentString<R, V> };

export function useQuery<R, V extends AnyVariables>(args: QueryArgs<R, V>): UseQueryResponse<R, V> {
  return useUrqlQuery<R, V>({ ...args, query: args.query.toString() } as UseQueryArgs<V, R>);
}

export function useMutation<R, V extends AnyVariables>(document: TypedDocumentString<R, V>): UseMutationResponse<R, V> {
  return useUrqlMutation<R, V>(document.toString());
}

// What every paged list reads of its connection's page (the documents spread it: `pageInfo { ...ConsolePageInfo }`).
graphql(`
  fragment ConsolePageInfo on PageInfo {
    hasNextPage
    endCursor
  }
`);

const SignedIn = graphql(`
  query ConsoleSignedIn {
    me {
      agentId
      name
    }
  }
`);

/** The signed-in agent's id and name (one query, cached, for every page that needs them). */
export function useSignedInAgent(): { agentId: string; name: string } | undefined {
  const [result] = useQuery({ query: SignedIn });
  return result.data?.me;
}
