// Setup of the Node test projects: password hashes at a cheap scrypt setting, as the suite makes hundreds of them (a
// sign-up, a sign-in each). The production setting is tested in test/auth/passwords.test.ts and in workerd.
import { setScryptParametersForTests } from '../src/auth/passwords.ts';

setScryptParametersForTests({ N: 1024, r: 8, p: 1 });
