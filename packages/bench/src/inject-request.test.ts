import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { injectReminderJson, injectReminderMessage } from './inject-request.js';

describe('injectReminderMessage', () => {
  it.each(['displacing', 'plain'] as const)(
    'is the message create() builds from the %s request JSON, to the byte',
    (style) => {
      const literal = injectReminderMessage('task-7', 'bench-1-9', style);
      const created = create(
        InjectTaskReminderRequestSchema,
        injectReminderJson('task-7', 'bench-1-9', style),
      );
      expect(literal).toEqual(created);
      expect(toBinary(InjectTaskReminderRequestSchema, literal)).toEqual(
        toBinary(InjectTaskReminderRequestSchema, created),
      );
    },
  );
});
