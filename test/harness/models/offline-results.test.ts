import { describe, expect, it } from 'vitest';
import { assistantMessage, userMessage } from '../../../core/items.js';
import type { AgentInputItem, ToolDefinition } from '../../../core/types.js';
import { ABSTAIN_ANSWER, OfflineModel } from '../../../harness/models/offline.js';
import { answerType, resultAnswer, resultRecords } from '../../../harness/models/reader/results.js';
import { callPair, objectSchema as obj } from '../../helpers/tool-items.js';

const model = new OfflineModel();

let calls = 0;
const called = (name: string, args: Record<string, unknown>, output: unknown): AgentInputItem[] => callPair(`r${++calls}`, name, args, output);

function ask(context: AgentInputItem[], question: string, tools: ToolDefinition[]): string {
  const r = model.reply({ input: [...context, userMessage(question)], tools });
  expect(r.toolCalls ?? []).toHaveLength(0);
  return r.output;
}

const pharmacyTools: ToolDefinition[] = [
  { name: 'get_prescription', description: 'Look up a prescription.', parameters: obj({ rx: { type: 'string' } }, ['rx']) },
  { name: 'place_order', description: 'Order a refill for home delivery.', parameters: obj({ rx: { type: 'string' } }, ['rx']) },
];

const pharmacy: AgentInputItem[] = [
  userMessage('I need a refill of my blood pressure tablets, prescription RX-40931.'),
  ...called('get_prescription', { rx: 'RX-40931' }, { rx: 'RX-40931', drug: 'Amlodipine 5 mg', prescriber: 'Dr Helen Okafor', refills_left: 2, expires: '2026-11-30' }),
  assistantMessage('Your prescription is valid and has refills left.'),
  userMessage('Please order it.'),
  ...called('place_order', { rx: 'RX-40931' }, { order_ref: 'PH-778120', status: 'packed', price: '12.40', currency: 'GBP', courier: 'Parcelwise', deliver_by: '2026-05-06T12:00' }),
  assistantMessage('Ordered; it is on its way.'),
];

describe('answers from tool results: pharmacy orders', () => {
  it('answers a reference question with the id-like field of the matching record', () => {
    expect(ask(pharmacy, 'What is the reference for my order?', pharmacyTools)).toBe('PH-778120');
    // The user's request that led to the call counts: "the blood pressure tablets" were asked for just before the lookup.
    expect(ask(pharmacy, 'Who prescribed the blood pressure tablets?', pharmacyTools)).toBe('Dr Helen Okafor');
  });

  it('answers "until when" with the date-valued field, written as the conversation writes dates', () => {
    expect(ask(pharmacy, 'By when will the order be delivered?', pharmacyTools)).toBe('May 6, 2026 at 12:00');
  });

  it('answers "how many" with a numeric field whose key the question names', () => {
    expect(ask(pharmacy, 'How many refills are left on the prescription?', pharmacyTools)).toBe('2');
  });

  it('answers "which X" with the value filed under key X, and a price with its currency', () => {
    expect(ask(pharmacy, 'Which courier is bringing it?', pharmacyTools)).toBe('Parcelwise');
    expect(ask(pharmacy, 'What did I pay for the order?', pharmacyTools)).toBe('12.40 GBP');
  });

  it('never answers with a value the question states itself', () => {
    expect(resultAnswer('Which drug is RX-40931?', resultRecords(pharmacy))).toBe('Amlodipine 5 mg');
    // "two" states `refills left: 2`: the answer is the other field the question asks for.
    expect(resultAnswer('How many refills left does the prescription have, two?', resultRecords(pharmacy))).toBeUndefined();
  });

  it('falls back to the reader when no record covers the question', () => {
    expect(resultAnswer('What is the pharmacist on duty called?', resultRecords(pharmacy))).toBeUndefined();
    expect(ask(pharmacy, 'What is the pharmacist on duty called?', pharmacyTools)).toBe(ABSTAIN_ANSWER);
  });

  it('leaves requests without tools to the reader: the conversation may have corrected a result since', () => {
    const r = model.reply({ input: [...pharmacy, userMessage('What is the reference for my refill order?')] });
    expect(r.output).not.toBe('PH-778120');
  });
});

const accessTools: ToolDefinition[] = [
  { name: 'query_access_log', description: 'Query the building access log.', parameters: obj({ sql: { type: 'string' } }, ['sql']) },
  { name: 'tail_door_events', description: 'Show recent door controller events.', parameters: obj({ door: { type: 'string' } }, ['door']) },
];

const building: AgentInputItem[] = [
  userMessage('Who badged into the server room on Saturday?'),
  ...called(
    'query_access_log',
    { sql: "select badge, holder, door, entries from access where day = '2026-03-14'" },
    ' badge   | holder        | door        | entries\n---------+---------------+-------------+---------\n B-1182  | Mira Solberg  | server room |       3\n B-2207  | Jonas Achebe  | loading bay |       5\n B-3310  | Ruth Van Dam  | server room |       1\n(3 rows)',
  ),
  assistantMessage('Two people entered the server room.'),
  userMessage('Check the door controller too.'),
  ...called(
    'tail_door_events',
    { door: 'server room' },
    '2026-03-14T09:12:44Z WARN door=server-room controller=DC-7 event=4471 held open duration=95s\n2026-03-14T09:20:03Z INFO door=server-room controller=DC-7 firmware=4.2.1 heartbeat ok',
  ),
  assistantMessage('The door was held open once.'),
];

describe('answers from tool results: building access', () => {
  it('picks the table row whose cells hold the question\'s qualifiers', () => {
    expect(ask(building, 'How many entries did Ruth Van Dam make?', accessTools)).toBe('1');
    expect(ask(building, 'Which badge did Jonas Achebe use?', accessTools)).toBe('B-2207');
  });

  it('reads key=value pairs of log lines', () => {
    expect(ask(building, 'What firmware is the door controller on?', accessTools)).toBe('4.2.1');
  });

  it('reads "how long" as a duration field and a named key\'s bare number as an identifier', () => {
    expect(ask(building, 'How long was the server room door held open?', accessTools)).toBe('95s');
    expect(ask(building, 'What is the event number of the door held open?', accessTools)).toBe('4471');
  });
});

const shippingTools: ToolDefinition[] = [
  { name: 'track_shipment', description: 'Track a parcel by its tracking number.', parameters: obj({ tracking: { type: 'string' } }, ['tracking']) },
  { name: 'book_pickup', description: 'Book a courier pickup.', parameters: obj({ address: { type: 'string' } }, ['address']) },
];

const shipping: AgentInputItem[] = [
  userMessage('Where is parcel 1Z88410?'),
  ...called('track_shipment', { tracking: '1Z88410' }, {
    tracking: '1Z88410',
    carrier: 'Northline',
    events: [
      { stage: 'picked up', hub: 'Rotterdam', at: '2026-02-02T08:10' },
      { stage: 'customs hold', hub: 'Antwerp', at: '2026-02-03T15:45' },
    ],
  }),
  assistantMessage('It is held at customs.'),
  userMessage('Book a pickup for the return box.'),
  ...called('book_pickup', { address: '12 Quay Street' }, { pickup_id: 'PU-5521', window_start: '2026-02-05T09:00', window_end: '2026-02-05T12:00' }),
  assistantMessage('Booked.'),
  userMessage('The window does not work, move it.'),
  ...called('book_pickup', { address: '12 Quay Street' }, { pickup_id: 'PU-5530', window_start: '2026-02-06T13:00', window_end: '2026-02-06T17:00' }),
  assistantMessage('Moved.'),
];

describe('answers from tool results: shipping tracking', () => {
  it('reads each row of a nested list with its parent record\'s fields', () => {
    expect(ask(shipping, 'Which hub is the customs hold at?', shippingTools)).toBe('Antwerp');
  });

  it('gives the newer record on a tie, the older when the question asks for the original', () => {
    expect(ask(shipping, 'What is the pickup id?', shippingTools)).toBe('PU-5530');
    expect(ask(shipping, 'What was the original pickup id?', shippingTools)).toBe('PU-5521');
  });
});

describe('answerType', () => {
  it('reads the asked type from the question form', () => {
    expect(answerType('Until when can I cancel?')).toBe('date');
    expect(answerType('How many units shipped?')).toBe('number');
    expect(answerType('What is the booking reference?')).toBe('id');
    expect(answerType('Which courier is it?')).toBe('key');
  });
});
