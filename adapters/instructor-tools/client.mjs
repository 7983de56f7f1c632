// @instructor-ai/instructor in TOOLS mode (matrix/instructor.mjs).
import { instructor } from '../../matrix/instructor.mjs';

await instructor('TOOLS');
