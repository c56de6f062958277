// Field specs that several registers share (owner, name, description).
import { idOf, longText, shortText } from './fields.ts';
import { optional, required } from './register.ts';

export const ownerField = (role = 'Owner') =>
  optional(
    idOf('per', 'Person').describe(
      `${role}: a person of the same organization (\`per_...\`); null clears it.`,
    ),
    'person',
  );

export const nameField = (example: string) => required(shortText().describe(`Name, e.g. "${example}".`));

export const descriptionField = (what: string) =>
  optional(longText().describe(`Free-text description of the ${what}.`));
