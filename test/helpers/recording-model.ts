// An Agents SDK `Model` for tests: it records every request's input and
// answers with a scripted assistant text, so a test can see exactly what a
// memory strategy made the runner send.
import { Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type protocol } from '@openai/agents';

type StreamEvent = protocol.StreamEvent;

export class RecordingModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  readonly instructions: (string | undefined)[] = [];
  private readonly reply: (callIndex: number) => string;

  constructor(reply: (callIndex: number) => string = (i) => `reply ${i + 1}`) {
    this.reply = reply;
  }

  private respond(request: ModelRequest): ModelResponse {
    const input = typeof request.input === 'string' ? [{ role: 'user' as const, content: request.input }] : request.input;
    this.inputs.push(structuredClone(input));
    this.instructions.push(request.systemInstructions);
    const index = this.inputs.length - 1;
    return {
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
      output: [
        {
          type: 'message',
          id: `msg_${index + 1}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: this.reply(index) }],
        },
      ],
      responseId: `resp_${index + 1}`,
    };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return this.respond(request);
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = this.respond(request);
    yield {
      type: 'response_done',
      response: {
        id: response.responseId ?? 'resp',
        usage: {
          requests: 1,
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
          totalTokens: response.usage.totalTokens,
        },
        output: response.output,
      },
    } as StreamEvent;
  }

  /** Input of the newest call. */
  get lastInput(): AgentInputItem[] {
    return this.inputs[this.inputs.length - 1] ?? [];
  }
}
