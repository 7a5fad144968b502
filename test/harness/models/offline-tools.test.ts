import { describe, expect, it } from 'vitest';
import { assistantMessage, userMessage } from '../../../core/items.js';
import type { AgentInputItem, ToolCall, ToolDefinition } from '../../../core/types.js';
import { ABSTAIN_ANSWER, OfflineModel } from '../../../harness/models/offline.js';
import { chooseTool, requestVerb } from '../../../harness/models/reader/tools.js';
import { parametersOf } from '../../../harness/models/reader/arguments.js';
// Short names: the conversations below are built from many of them.
import { callPair as called, objectSchema as obj } from '../../helpers/tool-items.js';

const model = new OfflineModel();

function reply(context: AgentInputItem[], question: string, tools: ToolDefinition[]): { output: string; toolCalls?: ToolCall[] } {
  return model.reply({ input: [...context, userMessage(question)], tools });
}

/** The one call of a reply, its arguments parsed; fails the test when there is none. */
function onlyCall(r: { toolCalls?: ToolCall[] }): { name: string; args: Record<string, unknown> } {
  expect(r.toolCalls).toHaveLength(1);
  const call = r.toolCalls![0];
  return { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> };
}


const opsTools: ToolDefinition[] = [
  {
    name: 'restart_service',
    description: 'Restart a systemd service on a host.',
    parameters: obj({ service: { type: 'string', description: 'Unit name' }, host: { type: 'string', description: 'Hostname' } }, ['service', 'host']),
  },
  { name: 'get_disk_usage', description: 'Report disk usage of a host.', parameters: obj({ host: { type: 'string' } }, ['host']) },
  {
    name: 'tail_logs',
    description: 'Show the last lines of a service log.',
    parameters: obj({ service: { type: 'string' }, lines: { type: 'integer', description: 'How many lines' } }, ['service']),
  },
];

const outage: AgentInputItem[] = [
  userMessage('Checkout is timing out for everyone. The affected host is web-03.prod.example.com.'),
  assistantMessage('Understood. Which service is failing?'),
  userMessage('The payments-api service keeps crashing; nginx looks fine.'),
  ...called('c1', 'get_disk_usage', { host: 'web-03.prod.example.com' }, '{"host":"web-03.prod.example.com","used_pct":97,"mount":"/var"}'),
  assistantMessage('The /var mount is 97% full, which can crash services that write logs.'),
];

const crmTools: ToolDefinition[] = [
  {
    name: 'get_order',
    description: 'Look up an order by its order number.',
    parameters: obj({ order_id: { type: 'string', description: 'The order number, e.g. ORD-10233' } }, ['order_id']),
  },
  {
    name: 'issue_refund',
    description: 'Refund an order, fully or partly.',
    parameters: obj(
      {
        order_id: { type: 'string' },
        amount: { type: 'number', description: 'Amount in USD; the whole order when left out' },
        reason: { type: 'string', enum: ['damaged', 'late_delivery', 'wrong_item', 'other'] },
      },
      ['order_id', 'reason'],
    ),
  },
  { name: 'find_customer', description: 'Find a customer record by email address.', parameters: obj({ email: { type: 'string' } }, ['email']) },
];

const complaint: AgentInputItem[] = [
  userMessage('Hi, my blender arrived with a cracked jug. My order number is ORD-58213, email jane.doe@acme.com.'),
  assistantMessage("I'm sorry to hear that. Let me see what I can do."),
];

const dataTools: ToolDefinition[] = [
  {
    name: 'run_query',
    description: 'Run a saved analytics query over a date range.',
    parameters: obj(
      {
        metric: { type: 'string', enum: ['revenue', 'signups', 'churn', 'active_users'] },
        start_date: { type: 'string', format: 'date' },
        end_date: { type: 'string', format: 'date' },
        limit: { type: 'integer', description: 'Maximum rows to return' },
      },
      ['metric', 'start_date', 'end_date'],
    ),
  },
  { name: 'export_csv', description: 'Export the last query result as CSV to a storage bucket.', parameters: obj({ bucket: { type: 'string' } }, ['bucket']) },
];

const analysis: AgentInputItem[] = [
  userMessage('[2025-04-10T09:00:00Z] I am preparing the Q1 board deck; the EMEA numbers matter most.'),
  assistantMessage('Happy to help. Tell me which figures you need.'),
];

describe('offline tool rule: ops runbook', () => {
  it('restarts the service on the host given earlier in the conversation', () => {
    const call = onlyCall(reply(outage, 'Please restart the payments-api service.', opsTools));
    expect(call).toEqual({ name: 'restart_service', args: { service: 'payments-api', host: 'web-03.prod.example.com' } });
  });

  it('takes a value the request states over one of the context, and the thing acted on after the verb', () => {
    const call = onlyCall(reply(outage, 'Restart nginx on web-04.', opsTools));
    expect(call.args).toEqual({ service: 'nginx', host: 'web-04' });
  });

  it('reads "it" as the thing named before, not as a value', () => {
    const call = onlyCall(reply(outage, 'Can you restart it on the same host?', opsTools));
    expect(call.args).toEqual({ service: 'payments-api', host: 'web-03.prod.example.com' });
  });

  it('fills an integer parameter from a number the request states beside its name', () => {
    const call = onlyCall(reply(outage, 'Show me the last 50 lines of the payments-api log.', opsTools));
    expect(call).toEqual({ name: 'tail_logs', args: { service: 'payments-api', lines: 50 } });
    expect(typeof call.args.lines).toBe('number');
  });

  it('leaves out an optional parameter the conversation never gave', () => {
    const call = onlyCall(reply(outage, 'Tail the payments-api log.', opsTools));
    expect(call.args).toEqual({ service: 'payments-api' });
  });
});

describe('offline tool rule: no call when the context already holds the result', () => {
  it('answers a question about a result in the context instead of fetching it again', () => {
    const r = reply(outage, 'How full was the /var mount?', opsTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toContain('97%');
  });

  it('answers a request whose very call was already answered with that result', () => {
    const r = reply(outage, 'Check the disk usage on the affected host.', opsTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toContain('used pct: 97');
  });

  it('calls again when the request asks for it again', () => {
    const call = onlyCall(reply(outage, 'Check the disk usage on that host once more.', opsTools));
    expect(call).toEqual({ name: 'get_disk_usage', args: { host: 'web-03.prod.example.com' } });
  });

  it('calls again when a strategy replaced the result with a placeholder', () => {
    const masked = [...complaint, ...called('c1', 'get_order', { order_id: 'ORD-58213' }, '[result of get_order(order_id=ORD-58213) removed]')];
    const kept = [...complaint, ...called('c1', 'get_order', { order_id: 'ORD-58213' }, '{"order_id":"ORD-58213","status":"delivered","carrier":"DHL"}')];
    const question = 'Which carrier delivered the order?';
    expect(onlyCall(reply(masked, question, crmTools))).toEqual({ name: 'get_order', args: { order_id: 'ORD-58213' } });
    const answered = reply(kept, question, crmTools);
    expect(answered.toolCalls).toBeUndefined();
    expect(answered.output).toContain('DHL');
  });
});

describe('offline tool rule: CRM', () => {
  it('looks up the order by the id the user gave', () => {
    expect(onlyCall(reply(complaint, 'Can you pull up my order?', crmTools))).toEqual({ name: 'get_order', args: { order_id: 'ORD-58213' } });
  });

  it('takes an enum value the request says in words, and a money amount for a sum parameter', () => {
    const call = onlyCall(reply(complaint, 'Please refund $35 on that order for the late delivery.', crmTools));
    expect(call).toEqual({ name: 'issue_refund', args: { order_id: 'ORD-58213', amount: 35, reason: 'late_delivery' } });
  });

  it('chooses among tools by name and description', () => {
    expect(onlyCall(reply(complaint, 'Find my customer record, please.', crmTools))).toEqual({ name: 'find_customer', args: { email: 'jane.doe@acme.com' } });
  });

  it('answers a question about what the user said from the context', () => {
    const r = reply(complaint, 'What is my order number again?', crmTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toContain('ORD-58213');
  });

  it('says what is missing instead of inventing a required argument', () => {
    const r = reply([userMessage('Hello!'), assistantMessage('Hi, how can I help?')], 'Please look up my order.', crmTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toMatch(/order id was not given/);
  });
});

describe('offline tool rule: data analysis', () => {
  it('runs a query with a date range and an enum metric', () => {
    const call = onlyCall(reply(analysis, 'Run the revenue query from 2025-01-01 to 2025-03-31.', dataTools));
    expect(call).toEqual({ name: 'run_query', args: { metric: 'revenue', start_date: '2025-01-01', end_date: '2025-03-31' } });
  });

  it('writes dates in words as ISO days, with the range ends in order, and a row limit', () => {
    const call = onlyCall(reply(analysis, 'Can you run signups for March 1 to March 31, 2025, top 20 rows?', dataTools));
    expect(call.args).toEqual({ metric: 'signups', start_date: '2025-03-01', end_date: '2025-03-31', limit: 20 });
  });

  it('reads a relative month against the conversation\'s day as a range', () => {
    const call = onlyCall(reply(analysis, 'Run churn for last month.', dataTools));
    expect(call.args).toEqual({ metric: 'churn', start_date: '2025-03-01', end_date: '2025-03-31' });
  });

  it('takes the arguments the request does not change from the earlier call of the same tool', () => {
    const context = [
      ...analysis,
      ...called('q1', 'run_query', { metric: 'revenue', start_date: '2025-01-01', end_date: '2025-03-31' }, 'metric | total\n---|---\nrevenue | 4.2M'),
      assistantMessage('Q1 revenue was 4.2M.'),
    ];
    const call = onlyCall(reply(context, 'Now run the same for signups.', dataTools));
    expect(call.args).toEqual({ metric: 'signups', start_date: '2025-01-01', end_date: '2025-03-31' });
  });
});

describe('offline tool rule: no call for what no tool does', () => {
  it('answers with the reader when no tool matches the request', () => {
    const r = reply(analysis, 'Book me a flight to Lisbon.', dataTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toBe(ABSTAIN_ANSWER);
    expect(chooseTool('Book me a flight to Lisbon.', dataTools)).toBeUndefined();
  });

  it('does not choose a tool on a parameter word or a single description word alone', () => {
    const purchases: ToolDefinition = { name: 'lookup_purchase', description: 'Fetch a purchase record.', parameters: obj({ order_id: { type: 'string' } }, ['order_id']) };
    expect(chooseTool('What is my order number?', [purchases])).toBeUndefined();
    expect(chooseTool('Fetch the purchase record for order 4471.', [purchases])?.terms.tool.name).toBe('lookup_purchase');
    expect(chooseTool('Change the font on slide 3.', opsTools)).toBeUndefined();
  });

  it('tells requests to act from questions and from requests to be told', () => {
    expect(requestVerb('Restart nginx on web-04.')?.verb).toBe('restart');
    expect(requestVerb('Could you please look up order 4471?')?.verb).toBe('look');
    expect(requestVerb('Okay, go ahead and refund it.')?.verb).toBe('refund');
    expect(requestVerb('Can you remind me which host failed?')).toBeUndefined();
    expect(requestVerb('Which firmware did the lookup show?')).toBeUndefined();
    expect(requestVerb('Did the restart work?')).toBeUndefined();
    expect(requestVerb('By when does the refund reach her card?')).toBeUndefined();
  });
});

describe('offline tool rule: schema reading and determinism', () => {
  it('reads parameter kinds from types, formats, names and descriptions, required first', () => {
    const params = parametersOf(dataTools[0].parameters);
    expect(params.map((p) => [p.name, p.kind, p.required])).toEqual([
      ['metric', 'enum', true],
      ['start_date', 'date', true],
      ['end_date', 'date', true],
      ['limit', 'integer', false],
    ]);
    expect(params.find((p) => p.name === 'end_date')?.end).toBe('end');
  });

  it('gives byte-identical replies to the same request, and the calls through complete()', async () => {
    const question = 'Please refund $35 on that order for the late delivery.';
    const a = await model.complete({ input: [...complaint, userMessage(question)], tools: crmTools, purpose: 'answer' });
    const b = await model.complete({ input: [...complaint, userMessage(question)], tools: crmTools, purpose: 'answer' });
    expect(a.output).toBe('');
    expect(a.toolCalls).toEqual(b.toolCalls);
    expect(a.usage.outputTokens).toBeGreaterThan(0);
    // Declared order, as a model writes them.
    expect(a.toolCalls?.[0].arguments).toBe('{"order_id":"ORD-58213","amount":35,"reason":"late_delivery"}');
  });

  it('answers a request without tools exactly as before', () => {
    const input = [...complaint, userMessage('What is my order number?')];
    expect(model.reply({ input })).toEqual({ output: model.answer({ input }) });
    expect(model.reply({ input, tools: [] }).toolCalls).toBeUndefined();
  });

  it('follows the transcript-format example: call on "once more", answer on "did the lookup show"', () => {
    const tools: ToolDefinition[] = [{ name: 'lookup_device', description: 'Look up a device by serial number.', parameters: obj({ serial: { type: 'string' } }, ['serial']) }];
    const context = [
      userMessage("Hi, my router won't connect. I'm on Windows 10 and a Premium customer."),
      assistantMessage("Let's check your firmware version."),
      userMessage('Firmware v1.0.3; still failing.'),
      ...called('call_t2_1', 'lookup_device', { serial: 'RX-88812' }, '{"model":"AX3000","firmware":"1.0.3"}'),
      assistantMessage('Try a factory reset.'),
    ];
    expect(onlyCall(reply(context, 'Can you pull the device record up once more?', tools))).toEqual({ name: 'lookup_device', args: { serial: 'RX-88812' } });
    const answered = reply(context, 'Which firmware did the lookup show?', tools);
    expect(answered.toolCalls).toBeUndefined();
    expect(answered.output).toContain('1.0.3');
  });
});

// Conversations of other domains than the bundled suite, each probe naming the call a careful
// operator would make: they check the argument rule on wording it was not written against.
const libraryTools: ToolDefinition[] = [
  { name: 'find_member', description: 'Find a library member by email address.', parameters: obj({ email: { type: 'string', format: 'email' } }, ['email']) },
  { name: 'get_loan', description: 'Look up a loan by its loan id.', parameters: obj({ loan_id: { type: 'string' } }, ['loan_id']) },
  {
    name: 'place_hold',
    description: 'Place a hold on a catalogue item for a member at a branch.',
    parameters: obj({ member_id: { type: 'string' }, item_id: { type: 'string' }, branch: { type: 'string', enum: ['central', 'riverside', 'hillview'] } }, ['member_id', 'item_id']),
  },
  { name: 'add_member_note', description: 'Add a note to a member account.', parameters: obj({ member_id: { type: 'string' }, note: { type: 'string' } }, ['member_id', 'note']) },
  { name: 'search_catalog', description: 'Search the catalogue by title or author.', parameters: obj({ query: { type: 'string' } }, ['query']) },
  { name: 'renew_loan', description: 'Renew a loan for some days.', parameters: obj({ loan_id: { type: 'string' }, days: { type: 'integer' } }, ['loan_id']) },
];

const loans: AgentInputItem[] = [
  userMessage('Hi, this is Priya Nair, priya.n@example.org. I have a loan to sort out.'),
  ...called('l1', 'find_member', { email: 'priya.n@example.org' }, '{"member_id":"LM-20931","name":"Priya Nair","home_branch":"central"}'),
  assistantMessage('Found your account.'),
  userMessage('The loan is LN-7781.'),
  ...called('l2', 'get_loan', { loan_id: 'LN-7781' }, '{"loan_id":"LN-7781","item_id":"BK-5520","title":"The Overstory","due":"2025-05-02"}'),
  assistantMessage('The Overstory is due on 2 May.'),
  userMessage('My neighbour Tomasz borrowed BK-5521 last week, not me.'),
];

const leaveTools: ToolDefinition[] = [
  { name: 'get_employee', description: 'Look up an employee record.', parameters: obj({ employee_id: { type: 'string' } }, ['employee_id']) },
  {
    name: 'request_leave',
    description: 'File a leave request for an employee.',
    parameters: obj(
      {
        employee_id: { type: 'string' },
        leave_type: { type: 'string', enum: ['annual', 'sick', 'parental', 'unpaid'] },
        start_date: { type: 'string', format: 'date' },
        end_date: { type: 'string', format: 'date' },
        approver: { type: 'string', description: 'User handle of the approving manager' },
      },
      ['employee_id', 'leave_type', 'start_date', 'end_date', 'approver'],
    ),
  },
  {
    name: 'order_equipment',
    description: 'Order equipment for an employee, charged to a cost centre.',
    parameters: obj({ employee_id: { type: 'string' }, item: { type: 'string' }, cost_centre: { type: 'string' } }, ['employee_id', 'item']),
  },
];

const leave: AgentInputItem[] = [
  userMessage('I am booking time off for Dana Okafor on my team.'),
  ...called('h1', 'get_employee', { employee_id: 'E-40871' }, '{"employee_id":"E-40871","name":"Dana Okafor","manager":"m.osei","cost_centre":"CC 4410 Field Ops"}'),
  assistantMessage("Dana's manager is m.osei."),
  ...called(
    'h2',
    'request_leave',
    { employee_id: 'E-40871', leave_type: 'annual', start_date: '2025-07-01', end_date: '2025-07-04', approver: 'm.osei' },
    '{"request_id":"LR-3310","status":"pending"}',
  ),
  assistantMessage('Submitted LR-3310, pending with m.osei.'),
  userMessage('Marta from payroll says the approver should be j.lindqvist while m.osei is away.'),
];

const switchTools: ToolDefinition[] = [
  {
    name: 'get_port',
    description: 'Show the configuration and state of a switch port.',
    parameters: obj({ switch: { type: 'string', description: 'Switch hostname' }, port: { type: 'string', description: 'Interface name, e.g. ge-0/0/12' } }, ['switch', 'port']),
  },
  {
    name: 'set_port_vlan',
    description: 'Set the VLAN and mode of a switch port.',
    parameters: obj(
      { switch: { type: 'string' }, port: { type: 'string' }, vlan: { type: 'integer' }, mode: { type: 'string', enum: ['access', 'trunk'] } },
      ['switch', 'port', 'vlan', 'mode'],
    ),
  },
  {
    name: 'get_port_counters',
    description: 'Read one counter of a switch port.',
    parameters: obj({ switch: { type: 'string' }, port: { type: 'string' }, counter: { type: 'string', enum: ['crc_errors', 'rx_drops', 'tx_drops', 'link_flaps'] } }, ['switch', 'port', 'counter']),
  },
];

const printer: AgentInputItem[] = [
  userMessage('The printer on floor 3 lost network. It hangs off sw-fl3-02.'),
  ...called('n1', 'get_port', { switch: 'sw-fl3-02', port: 'ge-0/0/14' }, '{"port":"ge-0/0/14","vlan":20,"mode":"access","status":"up"}'),
  assistantMessage('ge-0/0/14 is up on VLAN 20.'),
  userMessage('Printers belong on VLAN 40 since the re-addressing.'),
];

describe('offline tool rule: a value must have the shape of the parameter', () => {
  it('does not take an item code for a member id known from a lookup result', () => {
    expect(onlyCall(reply(loans, 'Place a hold on BK-6012 for me at the riverside branch.', libraryTools))).toEqual({
      name: 'place_hold',
      args: { member_id: 'LM-20931', item_id: 'BK-6012', branch: 'riverside' },
    });
  });

  it('keeps the member id of the lookup when the request names only another record', () => {
    const call = onlyCall(reply(loans, 'Add a note to my account: BK-5521 is with Tomasz.', libraryTools));
    expect(call.name).toBe('add_member_note');
    expect(call.args.member_id).toBe('LM-20931');
  });

  it('does not take a person for a parameter earlier calls filled with a user handle, and follows the stated update', () => {
    const call = onlyCall(reply(leave, 'Dana and Ingrid agreed: file parental leave for her from 2025-10-01 to 2025-12-31.', leaveTools));
    expect(call).toEqual({
      name: 'request_leave',
      args: { employee_id: 'E-40871', leave_type: 'parental', start_date: '2025-10-01', end_date: '2025-12-31', approver: 'j.lindqvist' },
    });
  });

  it('takes a field a result filed under the parameter\'s name whole, spaces and all', () => {
    const call = onlyCall(reply(leave, 'Order a headset for Dana on her cost centre.', leaveTools));
    expect(call.name).toBe('order_equipment');
    expect(call.args.employee_id).toBe('E-40871');
    expect(call.args.cost_centre).toBe('CC 4410 Field Ops');
  });

  it('leaves an enum value of another parameter to it, and a port to the shape ports had', () => {
    expect(onlyCall(reply(printer, 'Move it to vlan 40 as an access port.', switchTools))).toEqual({
      name: 'set_port_vlan',
      args: { switch: 'sw-fl3-02', port: 'ge-0/0/14', vlan: 40, mode: 'access' },
    });
  });

  it('takes the values the request states over the ones of the context', () => {
    expect(onlyCall(reply(printer, 'Show me port ge-0/0/7 on switch sw-fl3-05.', switchTools))).toEqual({
      name: 'get_port',
      args: { switch: 'sw-fl3-05', port: 'ge-0/0/7' },
    });
  });

  it('does not take a code of another prefix named beside the parameter later in the context', () => {
    const context = [
      ...loans,
      ...called('l3', 'place_hold', { member_id: 'LM-20931', item_id: 'BK-6012' }, '{"hold_id":"HD-1182","status":"waiting"}'),
      userMessage('Thanks, the HD-1182 loan hold is fine.'),
    ];
    expect(onlyCall(reply(context, 'Renew the loan for 14 days.', libraryTools))).toEqual({ name: 'renew_loan', args: { loan_id: 'LN-7781', days: 14 } });
  });

  it('finds the request in a later sentence after what prompted it', () => {
    const r = reply(leave, 'My laptop crashed and I lost the page. Pull up her employee record again.', leaveTools);
    expect(onlyCall(r)).toEqual({ name: 'get_employee', args: { employee_id: 'E-40871' } });
  });

  it('redoes the earlier lookup the request asks for again', () => {
    const context = [...loans, ...called('l4', 'renew_loan', { loan_id: 'LN-7781', days: 7 }, '{"ok":true,"due":"2025-05-09"}'), assistantMessage('Renewed.')];
    expect(onlyCall(reply(context, 'Open the Overstory loan again, I want the due date.', libraryTools))).toEqual({ name: 'get_loan', args: { loan_id: 'LN-7781' } });
  });

  it('takes an enum value by the first word no other value starts with', () => {
    expect(onlyCall(reply(printer, 'Read the CRC counter on that port.', switchTools)).args).toEqual({ switch: 'sw-fl3-02', port: 'ge-0/0/14', counter: 'crc_errors' });
    expect(onlyCall(reply(printer, 'Now read the rx counter on that port.', switchTools)).args.counter).toBe('rx_drops');
  });

  it('reads "fix" and "correct" as verbs of change', () => {
    expect(chooseTool('Fix that port, the printer belongs on 40.', switchTools)?.terms.tool.name).toBe('set_port_vlan');
    expect(chooseTool('Correct the port for the printer.', switchTools)?.terms.tool.name).toBe('set_port_vlan');
  });

  it('answers a question about a result the context holds instead of calling with other arguments', () => {
    const r = reply(leave, 'What was the request id for the July leave? Payroll wants it.', leaveTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toContain('LR-3310');
  });

  it('reads a sentence that opens with a preposition as no request', () => {
    const r = reply(leave, 'For the payroll audit, what status did the July leave request get?', leaveTools);
    expect(r.toolCalls).toBeUndefined();
    expect(r.output).toContain('pending');
  });

  it('reads an apostrophe inside a word as no quotation mark', () => {
    const call = onlyCall(reply(loans, "There's a book I'd like: search the catalogue for Braiding Sweetgrass.", libraryTools));
    expect(call.name).toBe('search_catalog');
    expect(call.args.query).not.toMatch(/^s /);
  });
});
