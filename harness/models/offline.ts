// The built-in `offline` model: a deterministic extractive reader, not an LLM.
// It lets a run measure what a strategy kept without a network or a key.
import { msSince, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { callText, isUserMessage, itemText } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem, ToolCall } from '../../core/types.js';
import { ABSTAIN_ANSWER, MIN_COVERAGE, NOT_GIVEN, answerQuestion } from './reader/answer.js';
import { readContext, splitSentences } from './reader/context.js';
import { resultAnswer, resultRecords } from './reader/results.js';
import { decideTool, fieldAnswer, missingReply, resultContext, resultText } from './reader/tools.js';
import { contentStems } from './reader/words.js';

export { ABSTAIN_ANSWER, MIN_COVERAGE, contentStems, splitSentences };

/** Splits a request into the question (last user item) and the context before it. */
export function questionAndContext(input: AgentInputItem[]): { question: string; context: AgentInputItem[] } {
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUserMessage(input[i])) return { question: itemText(input[i]), context: input.slice(0, i) };
  }
  return { question: '', context: input };
}

/** The question without a leading `[at]` stamp, which only says when it was asked. */
function bareQuestion(text: string): string {
  return text.replace(/^\s*\[[^\]\n]{4,40}\]\s*/, '');
}

/**
 * The `offline` model: a deterministic extractive reader. It answers only from the
 * context it is given and never sees the expected answer.
 *
 * 1. Context. The question is the last user item; the context is the system text and
 *    every item before it. Each message is split into statements (sentences and
 *    clauses); JSON and text-table tool output into records ("key: value, …"). Each
 *    statement keeps who said it (user, assistant, tool, or the `Name:` a line starts
 *    with; a speaker's name that only addresses them, set off by a comma or "!" at
 *    either end of a sentence without "you" or "your" in it, as in "Thanks, Caroline!",
 *    is not among the line's words), the day of its message (`[at]` or `[Session n: date]` stamps) and its
 *    typed spans: dates (relative ones resolved against that day), times (with a zone
 *    named after them, "15:00 Pacific"), money,
 *    quantities, percentages, identifiers, hosts, versions, names, phones, emails,
 *    currencies named without an amount ("in EUR", "in euros"), operating systems and
 *    browsers by name ("Windows 10", "macOS", "Firefox"), and diets ("pescatarian",
 *    "strictly gluten-free"). A row
 *    of a JSON list keeps its parents' codes ("items serial: PF4X9K27, …, po: PO-2025-0412");
 *    a noun right before a code labels it ("form RW-12"); a statement after a short heading
 *    of its message (up to 8 words, no value: "Region owners, for the follow-up emails.")
 *    also has the heading's words, at half weight. How the conversation writes dates comes
 *    from its own words and session headers, never from an `[at]` stamp.
 * 2. Question. Its answer type comes from its form (who, "which region owner" or "what's
 *    X's name" → a name, but a "who" after the asking word starts a relative clause; "what
 *    country/city/language" and "where … from" → a name; "which currency" → a currency
 *    named without an amount ("EUR", "euros"); "which operating system/browser" → one by
 *    name; "what diet", "what Sam can't eat" or "what must it be free of" → a diet, and
 *    for the last two what it is free of ("gluten-free" → gluten) (a statement naming a
 *    value of such a kind has the word for the kind, and for "… for me", in a question
 *    naming no one else, the user's own statement about themselves counts a quarter
 *    more); when → a date or time; "what
 *    date", "the last day", "which week did …", "at which (weekly) sync/meeting/check-in", a noun phrase headed by "date" or "day" ("the launch date";
 *    "what time of day" is a time) → a date; how many/much or "what dose" → a quantity or
 *    amount; "how long" (not "how long ago/before/between", which is computed) → a span of
 *    time ("7 years"; a bare number is none); "what value" → a number; a code word in the asked noun phrase, "which
 *    ticket/order/PO number" → an identifier; which host, version, phone, email,
 *    percentage); "what kind/type/sort of X" asks what "what X" asks; chat clippings read as
 *    their word ("fave"/"fav" → favorite, "pic" → picture, "bday" → birthday), and the
 *    irregular past of about 60 common verbs as the verb ("saw" → see, "held" → hold; not
 *    "left", which is also a side), in questions and statements alike. "How many workers" takes a bare number or a quantity in one of the
 *    first three words after "how many" (not "15 minutes", "$180.00" or a number filed
 *    under another key, `elapsed_s=936`); "how much X"
 *    asks for money when X ends in a word for a sum ("how much credit"), else for a
 *    quantity ("how much paid leave" → "8 weeks"), and with no noun after it when the
 *    question has a money word ("how much is the deposit"). "Did I say/report" asks for the user's statements and "did you
 *    recommend" for the assistant's; "now/current/latest" asks for the newest value. The
 *    asked attribute is the noun phrase after "what/which" ("the materiality *threshold*"),
 *    without type nouns and loose modifiers ("total", "current", "overall"), ended by a verb
 *    ("which vendor *quoted* …"), though a verb right after a determiner is the noun ("the
 *    *cause* of"), and a type noun alone is the value of what follows "for" ("what name did
 *    I give for my *partner*"); a noun phrase after the following verb is the subject it is asked of
 *    ("which PO are *the monitors* on"), and in "how much of X is for *Y*" the part Y; "how
 *    much is the cabinet order" asks a price unless the thing is measured otherwise; the
 *    names are
 *    its capitalised words and acronyms (not the letters of a code: "PF" of PF4X9K27, nor a
 *    title: "Dr. Amsel" names Amsel). A
 *    question that asks two things ("what size, and which apartment") is answered part by
 *    part, each with the rest of the question's words as its topic at a third of their weight,
 *    less what the other parts ask for (the apartment is looked for near the shoes, not near
 *    a size), and a part that names nothing ("how much is it?") about the topic the question
 *    put first ("The credit you gave us, …"); one asking for a number of values ("which three days") prefers statements
 *    holding that many (70% for fewer) and lists them, adding the values of the next
 *    statements that answer it while the best one has fewer ("dairy-free chocolate for the
 *    cake" + "a gluten-free flour blend" → "dairy and gluten").
 * 3. Retrieval. Statements score the IDF-weighted question stems they contain (words
 *    rare in the context count most; asking words like "report" or "pick" little, though
 *    the verb of a when-question is the event it asks about, "when did I first *find* the
 *    damage", and counts most, unless it only carries its object: "give a speech"; so does
 *    the verb of "what did we *decide*", met by its noun as well, "Decision from the
 *    standup", and the deed of "who *approved* the credit" or "which DJ did we *book*", which a context that never
 *    tells of it cannot answer, whatever names it holds, and the thing a yes/no question
 *    asks about, "is *breakfast* included"); a
 *    statement that is itself a question scores a fifth, one without a value of the
 *    asked type half, one by the other party 85%, one dated only by its message for a
 *    "when" or "what date" question three quarters (a "what date" statement that speaks
 *    of a date it does not give, "new date TBD", is not dated by its message), one with a
 *    value filed under the asked attribute (`manager: Rosa Delgado`) a quarter more, as does,
 *    for a question asked for whole, one that says what the attribute is ("Venue is now
 *    Harbor View Pavilion") or files a code under it ("with form RW-12"). A
 *    date in the question is met by statements of that day or naming it. A question word
 *    the context never uses is read as the context's words of its family (one stem starts
 *    with the other, both at least 5 letters, or they share their first 7: "officiating"
 *    → "Officiant"); names are never read by family. The first statement of a reply also
 *    matches, at 60%, the words of the questions the other party asked in its message
 *    before ("Could you confirm your patient number?" → "Born 11 March 1961, MRN
 *    00482917."; after a greeting of up to 3 words with no value, "Cool, Gina!", the
 *    statement after it; "Yes." and "No." are answers themselves), and each statement of a tool's output the words of the call it
 *    answers (for its score only: a search for "budget sheet" returns lines that need
 *    not be about a budget, so those words do not count toward its coverage). A near-tie goes to the statement with a value in the clause that holds all
 *    (two or more) of its question words (+0.1), then to the newer one (up to +0.05). The
 *    three best are tried in order. When nothing answers a question asking for a code, a
 *    code whose 3–4 letters before a separator abbreviate a word of the asked attribute
 *    stands for that word ("building permit" → BLD-2026-04417). In a chat whose lines
 *    start with their speaker's name (`Caroline: …`), a question about one speaker ("What
 *    did Melanie realize …") is not answered by a line another speaker said that does not
 *    name them: "I ran a charity race" by Caroline is about Caroline.
 * 4. Updates. A newer statement of the same slot replaces the value: one within 80% of
 *    the best score that shares its matched words (when the question asks for the
 *    current value, the statement says the value changed, or it scores as high), or one
 *    with at least a quarter of the score that says it changed ("is now", "revised",
 *    "moves to", "slipped", "instead", with a cue word the question does not use itself),
 *    is about the same thing (every name the best one has and the subject the question asks
 *    about, or a code its message shares) and names the slot in its own words (the head of
 *    the asked attribute, or the attribute's rarest word with half its words: "Take-home
 *    is now $4,610" for "the take-home pay"; for a question
 *    about the current value, half the best one's words; for a version, host, email,
 *    phone or URL, a value of that type names it: "Router update done, it says 1.1.8
 *    now"). A question naming its version ("the original", "revised") gets the statement
 *    of that version. A statement that says what the attribute is is not replaced by one
 *    that only names it ("the final walkthrough at the venue"). For "which three days", a
 *    later statement that says the values changed and gives that many new ones replaces
 *    them, though it repeats no word of the question.
 * 5. Two hops. When the best statement leaves question words uncovered, two statements
 *    linked by a name, an acronym (anywhere, "EMEA-North" at a sentence start too) or a
 *    whole code the question does not mention (never a part of a code, such as its year)
 *    (A: "Kestrel Foods had the most late shipments", B: "Kestrel Foods … account manager
 *    Marisol Ortega") answer together if they cover at least 15 points more of the
 *    question. A statement without a value of the asked type (for "when": without a date of
 *    its own) may also link through a pair of adjacent words at most 3 statements share ("my
 *    home country") or a word of 8 or more letters one other statement uses ("gallbladder"),
 *    or through any pair of adjacent words to a statement that states the asked attribute
 *    with a value of its type ("paid from the emergency fund" → "The emergency fund now
 *    lives in the Northbank account ending 7731" for "which account"),
 *    without covering more of the question when the link supplies the value, and to a
 *    statement that shares no word with the question ("EMEA-North is Katrin Vogel"). The answer is the
 *    value beside the link; a linked record answers with the field the asked attribute
 *    names ("which vendor" → `vendor: Tessaract IT`); a link to an older value never answers
 *    a question for the current one. A call chosen as the best statement answers through
 *    its result's value filed under the asked attribute (`ticket: TCK-40977`; for a question
 *    asked for whole, any value: "which seats" → `seats: [42,43]`, not the call's `seats: 2`). A "who" whose
 *    best statement names a role ("Your manager approves requests") is answered by the
 *    newest statement naming the person in that role. With no statement holding a value of
 *    the asked type, the best one is continued by the next statement of its message that
 *    has one ("… lock waits exceed 30 seconds. Owner Hyun-woo.").
 * 6. Computation. "How many days/minutes between A and B", "after (past) A did B", "did
 *    A take … after B", "how many days later is A than B", "until A" (from the newest day
 *    in the context) and "how much more was A than B" are computed from the dates, times
 *    or amounts of the statements that answer A and B; an event is dated by a statement
 *    with its verb ("were *delivered*"; for an event named by a noun, "to *mitigation*", the
 *    verb it comes from, "*mitigated* at 11:47") first, finding something out ("*spotting*
 *    the cents problem", "noticing the leak") by the day of the first statement that
 *    mentions the thing (without a generic head noun: "problem", "issue"), the *original*
 *    value of a slot that changed by its first statement, the end or start of a range by
 *    its later or earlier time ("the original window end" → 03:00 of "Window is 01:00 to
 *    03:00"), the two events by two statements, a
 *    reported event (dated on or before its message's day) by its first statement and a
 *    planned one (dated later) by its latest move, for a count of days by a statement
 *    giving a date (not only times of day), and through a code that links it to its dated
 *    statement. A date given relative to another event ("4 weeks before launch") is
 *    counted from that event's newest date. A question asking a sum of money ("what will
 *    catering cost", "in dollars, what is the target") whose statement gives a count
 *    instead ("110 guests", "4 months of fixed expenses") is answered with the count times
 *    the rate given per the same unit ("$72 per head", "$3,100 a month"; the newest of those
 *    sharing most words with the two statements, never one turned down: "not $68").
 *    "Which came first, A or B" and "did A happen before or after B"
 *    name the earlier with the days between; "how long ago" an event dated only to a year
 *    is answered in years.
 * 7. Answer. A date or time from the clause holding most question words. The span of the
 *    asked type: one filed under the asked attribute first (never one the statement turns
 *    down: "not the spot table …"; beside Y for "how much of X is for Y"), then
 *    the most fitting type, then the one in the clause holding most question words,
 *    then the nearest to them (after a name the question mentions, a value before it
 *    counts double). A list when values are listed together; a relative date resolved
 *    at the precision it was said with (for "what day and time", a statement giving the
 *    day alone is completed by the newest later one giving that day with a time: "May 20
 *    at 09:09"; "last month" → "May 2023", "last week" → "the
 *    week before 9 June 2023"); a record's ISO date in the conversation's style.
 *    A value the statement turns down ("not strictly vegetarian, …, so pescatarian") is
 *    passed over while another is left. Values given by tiers ("1 month's notice with
 *    less than 5 years of service and 2 months' notice with 5 years or more") answer a
 *    question stating its case ("an engineer with 6 years of service") with the value of
 *    the tier that case meets, never with a threshold; so do tiers by date, the other side
 *    said without its date in the next clause ("€750 for hires starting on or after 1 March
 *    2025; earlier hires keep €600" for "someone who started on 20 February 2025"). A "who"
 *    right after the one it describes ("someone who started") asks nothing.
 *    For other questions the value a record files under the asked attribute ("which
 *    card" → `card: visa-4417`); for a work (which book, song, film, piece, painting…)
 *    the quoted title nearest the question's words, with its "by" name ("Becoming
 *    Nicole" by Amy Ellis Nutt); for a question that ends at its verb ("what did the race
 *    raise awareness *for*", "what does her drawing *symbolize*") the short phrase after
 *    that verb in the statement, up to a clause break or a joining word ("… raising
 *    awareness for mental health is …" → "mental health"; not when the last word sits in
 *    a phrase of its own, "while *camping*"); else the statement itself, or the next one in the
 *    message when it only repeats the question (naming nothing new but pleasantries and
 *    "today": "Two problems today, sorry.") or heads the day it
 *    asks about; a question asking leave or advice ("Can we knock out the wall?",
 *    "should I …"), or what someone said when the statement relays their words ("Lena
 *    says …"), takes the next one or two statements of the message along, where the
 *    reason or condition usually is ("… is load-bearing. We can't remove it without a
 *    beam."), up to 30 words in all; any other takes a short fragment after it that only adds to
 *    what it listed ("I'm allergic to latex. And sulfa drugs."). At most 30 words. A first name is given in full when the conversation
 *    has one longer name it starts ("Hyun-woo" → "Hyun-woo Park"). A correction that
 *    negates its value ("Correction, the $1,148 didn't include bags") gives way to the
 *    next statement of its message with a value of the asked type.
 * 8. Abstention. The reply is ABSTAIN_ANSWER when no statement holds a value of the
 *    asked type, or when the chosen statement(s) cover less than MIN_COVERAGE of the
 *    question's content (IDF-weighted; asking words and common words no statement
 *    uses left out, names kept), lack a word of the asked attribute (in them, the
 *    statements next to them, or the question they reply to; the head of a "which
 *    customer" phrase is the kind of thing the answer names, so it may be missing, but
 *    then another word of the attribute must be stated, not only asked), or the question
 *    names a code or name no statement has. A statement that names the asked thing only as
 *    an item of a list of names (at least 3 items, three in four of them 3 words or fewer:
 *    "Summary, timeline, root cause, impact, …") says nothing about it and does not answer a
 *    question asked for whole. Nor does one with both words of a two-word attribute only in
 *    different clauses ("type 2 diabetes since 2014, high blood pressure" for "what blood
 *    type"; not for "which rate table", whose answer names a table). A possessor in lower
 *    case or an acronym ("the monitors' serial numbers", "APAC's churn rate") is what the
 *    attribute is asked of: the answer's message, or the question it replies to, must name it.
 *    A statement by the assistant, a tool or the instructions that says the information
 *    is not there ("The handbook doesn't cover parking") is passed on as not given.
 *
 * 9. Tools. A request that carries tools goes through the tool rule (reader/tools.ts, the README's
 *    "Tool probes"): the tool whose name and description share the most of the question's words
 *    (at least MIN_TOOL_SCORE), arguments filled from the question and then the context; a request
 *    to act is a call, a question about what something is or was is answered from the context
 *    (from the same call's result when it is there) and becomes a call only when that is not known.
 *    A question is first read from the structured tool results (reader/results.ts): the record
 *    matching its words, the field whose key or type it asks for, the value alone.
 *    Without tools the reply is the reader's.
 *
 * Limits, by design: it cannot paraphrase, infer what was never written, or do
 * arithmetic beyond the forms in 6. Usage is tiktoken counts of the request and the
 * reply; cost is 0. Judge and summary requests get the same treatment (the harness
 * routes those roles to its own offline rules).
 */
export class OfflineModel implements Model {
  readonly id = 'offline';
  // reader-v51: the algorithm above (reader-v50 looked for a statement saying "end" for "which
  // corydoras did I end up with", "money" for "how much guaranteed money" and "across" for "the
  // word count across all chapters"; reader-v49 answered "what time are we rolling out" with
  // the 7am that the user's next message took back: "Actually scratch that, let's say 6:30.";
  // reader-v48 answered "what's Hana's jersey number" from
  // "Benji's jersey number is 7"; reader-v47 answered "what's Teo's full name" with "Teo": a
  // possessive hid the question's own name from the rule that leaves it out; reader-v46 read
  // "what temperature did I set the heater to"
  // as asking for a statement that says "temperature", so "set to twenty-five degrees" was no
  // answer; reader-v45 answered "which two things must the cake be
  // free of" with one; reader-v44 answered "what did the race raise awareness for"
  // with the whole statement; reader-v43 answered "which of my two problems did I bring up
  // first" with "Two problems today, sorry."; reader-v42 dated "the original window end" by the window's
  // newest end; reader-v41 dated "spotting the cents problem" by a later
  // statement that refers back to it; reader-v40 answered "what name did I give for my partner"
  // with a product's name; reader-v39 answered "which DJ did we book" with the DJ
  // budget; reader-v38 answered "what blood type" from "type 2
  // diabetes …, high blood pressure"; reader-v37 answered "what was the root cause" with the
  // list of a postmortem's sections; reader-v36 could not link "paid from the emergency fund" to
  // "the emergency fund now lives in the account ending 7731"; reader-v35 looked for "which apartment" of "what size and
  // which apartment" near statements of sizes; reader-v34 read "which PR" and "which commit" as asking for a
  // statement and a commit hash as no code; reader-v33 answered "the monitors' serial numbers" with a
  // laptop's serial from a message that never mentions the monitors; reader-v32 answered "what day and time is our train"
  // with the day alone; reader-v31 read "someone who started on 20 February" as a
  // who-question and knew no tiers by date; reader-v30 could not date "mitigation" by "mitigated at
  // 11:47"; reader-v29 read "Pacific" of "15:00 Pacific" as a name;
  // reader-v28 answered "which seats do we have" with the
  // count the booking call asked for, not the seats its result gave; reader-v27 answered "an engineer with 6 years of service:
  // how much notice" with the tier's threshold, "5 years"; reader-v26 answered "what Sam can't eat" with a
  // statement; reader-v25 could not answer "what diet should the guide
  // plan for me" from "I'm not strictly vegetarian, I eat fish, so pescatarian"; reader-v24 answered "is breakfast included at Casa do
  // Largo" from a statement about the hotel that never mentions breakfast; reader-v23 answered "who approved the credit" with a
  // name from a statement about the credit that says nothing of approving; reader-v22 answered "at which weekly sync did …" with a
  // statement, not its day; reader-v21 read "decide" in "what did we decide at the
  // check-in" as an asking word; reader-v20 answered "which week did I miss" with a
  // statement, not a date; reader-v19 answered "what will catering cost at the
  // current count" with the count; reader-v18 read "find" in "when did I first find the
  // damage" as an asking word; reader-v15 to v17 took the next statements along for
  // any yes/no question, "Would Melanie go on another roadtrip soon?" included, and for a
  // statement that only mentions saying; reader-v16 could not answer "which operating system"
  // where the user only said "I am using Windows 10"; reader-v15 left out a fragment that adds to the answer's
  // list, "And sulfa drugs."; reader-v14 answered a yes/no question with the one
  // statement, leaving out the reason its message gave next; reader-v13 answered "which currency" with whatever
  // statement shared its other words; reader-v12 did not read "we saw" as "see" or "held" as
  // "hold"; reader-v11 answered "which book" with the whole statement
  // that quotes its title; reader-v10 did not read "fave" as "favorite", and gave the
  // question a reply answered to a greeting before the answer, "Cool, Gina!"; reader-v9 read "kind" in "what kind of books" as a word of the
  // question, and took "Thanks, Caroline!" as a line about Caroline; reader-v8 answered "how long has she been painting" with a
  // statement rather than a span of time; reader-v7 also answered a question about one speaker of
  // a named two-person chat from the other speaker's lines; reader-v6 linked, dated and updated
  // statements less well). The name is part of the cache key, so cached replies of an earlier
  // version are never served for it.
  readonly params: Record<string, unknown> = { algorithm: 'reader-v51' };
  private readonly counter: TokenCounter;

  constructor(opts: { counter?: TokenCounter } = {}) {
    this.counter = opts.counter ?? TokenCounter.shared();
  }

  /** The reply for a request, without usage accounting. */
  answer(request: Pick<ModelRequest, 'system' | 'input'>): string {
    return this.reply(request).output;
  }

  /**
   * The reply for a request: a call when it carries tools and the tool rule calls one
   * (README, "Tool probes"), else the reader's answer. Without tools it is the reader's answer.
   */
  reply(request: Pick<ModelRequest, 'system' | 'input' | 'tools'>): { output: string; toolCalls?: ToolCall[] } {
    const { question, context } = questionAndContext(request.input);
    const asked = bareQuestion(question);
    const ctx = readContext(request.system, context);
    if (!request.tools?.length) return { output: answerQuestion(asked, ctx) };
    // With tools, a question whose answer a result files under a named key is read from that
    // record first. Without tools a result is background the conversation may have corrected
    // since ("the price went up with bags"), which the reader's update rule handles.
    const fromResult = () => resultAnswer(asked, resultRecords(context), ctx.style);
    const decision = decideTool(asked, ctx, context, request.tools);
    switch (decision.action) {
      case 'call':
        return { output: '', toolCalls: [decision.call] };
      case 'missing':
        return { output: missingReply(decision.tool, decision.missing) };
      case 'answer':
        return { output: fromResult() ?? answerQuestion(asked, ctx) };
      case 'answer-from': {
        const read = fromResult();
        if (read !== undefined) return { output: read };
        // The result of the call the question is about is read first: other statements may share its words.
        const field = fieldAnswer(asked, ctx, decision.item);
        if (field !== undefined) return { output: field };
        const output = answerQuestion(asked, resultContext(ctx, decision.item));
        return { output: knows(output) ? output : answerQuestion(asked, ctx) };
      }
      case 'recall':
        return { output: resultText(ctx, decision.item) };
      case 'answer-or-call': {
        // The context is read first; the call is made only when the reader does not know.
        const output = fromResult() ?? answerQuestion(asked, ctx);
        return knows(output) ? { output } : { output: '', toolCalls: [decision.call] };
      }
    }
  }

  async complete(request: ModelRequest): Promise<ModelResult> {
    const started = performance.now();
    const { output, toolCalls } = this.reply(request);
    const written = toolCalls?.map(callText).join('\n') ?? '';
    const usage = {
      inputTokens: this.counter.request(request.system, request.input, request.tools),
      outputTokens: this.counter.text(output) + (written ? this.counter.text(written) : 0),
    };
    return { output, usage, cost: 0, cached: false, latencyMs: msSince(started), ...(toolCalls ? { toolCalls } : {}) };
  }
}

/** The reader gave an answer: it neither abstained nor passed on that the information is not there. */
function knows(output: string): boolean {
  return output !== ABSTAIN_ANSWER && !output.startsWith(NOT_GIVEN) && !output.endsWith('the rest was not mentioned');
}
