// The web reader's thread (web-reader.ts): pages parsed and read, passages cut and ranked, one task at a time.
import { serveTasks } from '../../platform/task-thread';
import { loadParsers, READER_TASKS } from './web-reader';

serveTasks(READER_TASKS, () => void loadParsers());
