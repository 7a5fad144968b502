import { describe, expect, it } from 'vitest';
import { analyseQuestion, focusPhrase, questionParts } from '../../../../harness/models/reader/question.js';

describe('what a question asks for', () => {
  it('splits a question that asks two things, a preposition going with the second', () => {
    expect(questionParts('How many leave days can someone carry over, and by when must they use them?')).toEqual([
      'How many leave days can someone carry over',
      'by when must they use them?',
    ]);
  });

  it.each([
    ['What date of loss is on my claim?', 'date'],
    ['What was the order number for the shoes?', 'identifier'],
    ["What's the serial of the replacement ThinkPad?", 'identifier'],
    ['What is the number of guests?', 'quantity'],
    ["What's Oakline's current quote?", 'money'],
    ["What's the current contractor estimate amount?", 'money'],
    ['What was the final price of the outbound flight?', 'money'],
    ['Which card should I tell my bank the refund went to?', 'clause'],
    ['Which card will the next invoice be charged to?', 'clause'],
    ['Which card did the refund go to?', 'clause'],
    ['Which ticket number is for the laptop?', 'identifier'],
    ['How much did the repair cost?', 'money'],
    ['How many guests are coming?', 'quantity'],
    ['What metformin dose do you have down for me?', 'quantity'],
    ["What's my mum's name?", 'name'],
    ['Which three days am I training on?', 'weekday'],
    ['Which day is the technician coming?', 'date'],
    ['Which week did I miss because of the flu?', 'date'],
    ['At which weekly sync did the FCC certification come through?', 'date'],
    // A "who" after the one it describes asks nothing: the question asks for the amount.
    ['And someone who started on 20 February 2025, which stipend amount applies to them?', 'money'],
    ["What's the name of the technician coming on Friday?", 'name'],
    ["What's the exact name of the new host?", 'host'],
    ['How much is the cabinet order from Northway?', 'money'],
    ['What value did orders_id_seq get set to on the new host?', 'number'],
    ['How much is the dose now?', 'quantity'],
    ["What's the phone number of the family member who sorted out my allergy mix-up?", 'phone'],
    ['Which region owner should get the note?', 'name'],
    ["What country is Caroline's grandma from?", 'name'],
    ['Which currency should every table in the pack be in?', 'currency'],
    ['What currencies does the raw data mix?', 'currency'],
    ['Which operating system am I using again?', 'platform'],
    ['What diet should the Sintra guide plan lunch for me?', 'diet'],
    ["Remind me what Sam can't eat, I'm filling in the tour form.", 'diet'],
    ['For the party cake, which two things must it be free of?', 'diet'],
    ["What's my browser?", 'platform'],
    ['Where did Caroline move from 4 years ago?', 'name'],
  ])('%j asks for a %s', (question, type) => {
    expect(analyseQuestion(question).type).toBe(type);
  });

  it('ends the asked noun phrase at a verb or a comma, and leaves names out', () => {
    expect(focusPhrase('Which incident id goes on the postmortem title?')).toEqual(['incident']);
    expect(focusPhrase('Which card holds the transferred balance?')).toEqual(['card']);
    // Right after a determiner such a verb is the asked noun; a past-tense verb after the noun ends it.
    expect(focusPhrase('What is the cause of the damage?')).toEqual(['cause']);
    expect(focusPhrase('Which vendor quoted the laptop with serial PF4X9K27?')).toEqual(['vendor']);
    expect(focusPhrase('Which revised quote did Oakline send?')).toEqual(['revised', 'quote']);
    expect(focusPhrase("Remind me what Sam can't eat, I'm filling in the tour form.")).toEqual(['can\'t', 'eat']);
    expect(focusPhrase("What's the name of Oakline's site foreman?")).toEqual(['site', 'foreman']);
  });

  it('takes the verb of a when-question as its focus, unless the verb only carries its object', () => {
    expect([...analyseQuestion('When did I first find the damage?').focus]).toEqual(['find']);
    expect([...analyseQuestion('When did Caroline give a speech at a school?').focus]).toEqual([]);
    // "Who approved" asks for the one who did the deed: a context that never tells of it has no answer.
    expect([...analyseQuestion('Who on your side approved the $45 credit?').focus]).toEqual(['approv']);
    // "Is breakfast included" asks about breakfast.
    expect([...analyseQuestion('Is breakfast included at Casa do Largo?').focus]).toEqual(['breakfast']);
    // "What did we decide" asks for the decision: the verb is its focus, and "decision" names it too.
    const decided = analyseQuestion('What did we decide at the 10 February check-in?');
    expect([...decided.focus]).toEqual(['decid']);
    expect(decided.nouns?.get('decid')).toEqual(['decision']);
  });

  it('reads "how long" as asking for a span of time, unless it asks the time between two events', () => {
    expect(analyseQuestion('How long has Melanie been creating art?')).toMatchObject({ type: 'quantity', duration: true });
    expect(analyseQuestion('How long is the warranty?')).toMatchObject({ type: 'quantity', duration: true });
    const between = analyseQuestion('How long before the page did the bad deploy go out?');
    expect(between.computation?.op).toBe('elapsed');
    expect(between.duration).toBeUndefined();
  });

  it('reads a possessor in lower case or an acronym as the thing asked of; a name is left to the name check', () => {
    expect([...(analyseQuestion("What are the monitors' serial numbers?").owner ?? [])]).toEqual(['monitor']);
    expect([...(analyseQuestion("What was APAC's churn rate in FY2024?").owner ?? [])]).toEqual(['apac']);
    expect(analyseQuestion("What was Oakline's quote?").owner).toBeUndefined();
    expect(analyseQuestion("What's the quote and who's sending it?").owner).toBeUndefined();
  });

  it('reads "which PR" and "which commit" as asking for an identifier', () => {
    expect(analyseQuestion('Which PR fixed it?').type).toBe('identifier');
    expect(analyseQuestion('Which commit introduced the setting?').type).toBe('identifier');
  });

  it('keeps a two-word attribute as a compound', () => {
    expect(analyseQuestion('What blood type do you have on file for me?').compound).toEqual(['blood', 'typ']);
    expect(analyseQuestion('What is my deductible?').compound).toBeUndefined();
  });

  it('takes the deed of "which X did we VERB" as its focus, only after a pronoun', () => {
    expect([...analyseQuestion('Which DJ did we book?').focus].sort()).toEqual(['book', 'dj']);
    expect([...analyseQuestion('Which card will the next invoice be charged to?').focus]).toEqual(['card']);
  });

  it('reads a type noun alone ("what name did I give for my partner") as asking about what follows "for"', () => {
    expect([...analyseQuestion('What name did I give for my partner on the second lamp order?').focus]).toEqual(['partner']);
    expect([...analyseQuestion('What date did we set for the launch?').focus]).toEqual(['launch']);
    expect([...analyseQuestion('What name did I give?').focus]).toEqual([]);
  });

  it('leaves a count out of the asked attribute', () => {
    expect([...analyseQuestion('Which three days am I training on?').focus]).toEqual([]);
    // "Full" says how much of the name to give, not which; "full marathon" still names a kind.
    expect([...analyseQuestion("What's the full name of the alert's owner?").focus]).toEqual(['owner']);
    expect([...analyseQuestion('What full marathon time am I aiming for?').focus]).toContain('full');
    // A title is no name; the name after it is.
    expect([...analyseQuestion('Which drug allergy will you tell Dr. Amsel about?').names]).toEqual(['amsel']);
  });

  it('reads the attribute after a plural type noun: "how many days of bereavement leave"', () => {
    expect([...analyseQuestion('How many days of bereavement leave do employees get?').focus].sort()).toEqual(['bereavement', 'leav']);
  });

  it('keeps the type noun and loose modifiers out of the attribute that must be present', () => {
    expect([...analyseQuestion("What's our overall budget now?").focus]).toEqual(['budget']);
    expect([...analyseQuestion('What firmware version did I report?').focus]).toEqual(['firmwar']);
    expect([...analyseQuestion("What's my current credit score?").focus].sort()).toEqual(['credit', 'scor']);
  });

  it('collects the names a question mentions, not the word that starts it', () => {
    expect([...analyseQuestion("What's Natalie Brooks' phone number?").names].sort()).toEqual(['brook', 'natali']);
    expect(analyseQuestion('Which region are we keeping out?').names.size).toBe(0);
  });

  it.each([
    ['How many days later is the final launch date than the original target?', 'the original target?', 'the final launch date'],
    ['How many minutes did replication take to drain to zero after we stopped writes?', 'we stopped writes?', 'replication drain to zero'],
    ['How many minutes past the original window end did we close the change?', 'the original window end', 'we close the change?'],
  ])('reads two events to compute the time between: %s', (question, from, to) => {
    expect(analyseQuestion(question).computation).toMatchObject({ op: 'elapsed', from, to });
  });

  it.each([
    ['How many unused leave days can someone carry over?', ['unus', 'leav', 'day']],
    ['How many workers does recon-api run with?', ['worker']],
    ['How many people am I cooking for?', ['peopl']],
    ['How many engineers work on the migration?', ['engineer', 'work']],
    ['What is the number of guests now?', ['guest']],
    ['How many more guests than last year?', undefined],
  ])('reads what "how many" counts: %s', (question, words) => {
    expect(analyseQuestion(question).countOf).toEqual(words);
  });

  it('reads "what time of day" as a time, not a date', () => {
    expect(analyseQuestion('What time of day do I usually run?').type).toBe('time');
    expect(analyseQuestion("What's the launch date right now?").type).toBe('date');
  });

  it.each([
    ['How much paid leave does the partner get?', 'quantity'],
    ['How much notice do they owe?', 'quantity'],
    ['How much credit did you give us?', 'money'],
    ['How much is the deposit?', 'money'],
    ['How much did the repair cost?', 'money'],
    ['How much money did I spend on gifts?', 'money'],
  ])('reads "how much" as money only for a sum: %s', (question, type) => {
    expect(analyseQuestion(question).type).toBe(type);
  });
});
