// A group of the api suite's files (test/support/groups.cjs).
import { runGroup } from '../support/group';

runGroup(__filename);
