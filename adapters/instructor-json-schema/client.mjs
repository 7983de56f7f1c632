// @instructor-ai/instructor in JSON_SCHEMA mode (matrix/instructor.mjs).
import { instructor } from '../../matrix/instructor.mjs';

await instructor('JSON_SCHEMA');
