import { describe, expect, it } from 'vitest';
import { FlowError } from '../../src/errors.js';
import { holdRequest, REDACTED_MARK, StepSkipped, type HeldRequest, type StepAnswer, type Stepper } from '../../src/output/step.js';

/** A person who answers with what `decide` makes of the request shown, and remembers what was shown. */
function person(decide: (request: HeldRequest) => StepAnswer, showSecrets = false): Stepper & { shown: HeldRequest[] } {
  const shown: HeldRequest[] = [];
  return {
    showSecrets,
    shown,
    ask: async (request) => {
      shown.push(request);
      return decide(request);
    },
  };
}

const TOKEN_REQUEST = {
  method: 'POST',
  url: 'http://127.0.0.1:1/token?x=1',
  headers: [
    ['content-type', 'application/x-www-form-urlencoded'],
    ['authorization', 'Basic c2VjcmV0'],
  ] as [string, string][],
  body: 'grant_type=authorization_code&code=abc&code_verifier=v3rifier&scope=openid+photo&pwd=hunter2',
};

describe('holdRequest (--step)', () => {
  it('without a stepper, lets the request go as it is', async () => {
    const held = await holdRequest({ secrets: new Set() }, 'token', 'token request', TOKEN_REQUEST);
    expect(held).toEqual({ request: TOKEN_REQUEST, edits: [] });
  });

  it('shows secrets redacted (by name, by header, and the values the user gave), and sends them as they were', async () => {
    const stepper = person((r) => ({ action: 'send', fields: r.fields.map((f) => (f.name === 'scope' ? { ...f, value: 'openid' } : f)) }));
    const held = await holdRequest({ stepper, secrets: new Set(['hunter2']) }, 'token', 'token request', TOKEN_REQUEST);
    const shown = Object.fromEntries(stepper.shown[0]!.fields.map((f) => [f.name, f.value]));
    expect(shown).toMatchObject({ code_verifier: REDACTED_MARK, authorization: REDACTED_MARK, pwd: REDACTED_MARK, code: 'abc', scope: 'openid photo' });
    expect(held.edits).toEqual(['form scope: "openid photo" -> "openid"']);
    expect(held.request.body).toBe('grant_type=authorization_code&code=abc&code_verifier=v3rifier&scope=openid&pwd=hunter2');
    expect(held.request.headers).toContainEqual(['authorization', 'Basic c2VjcmV0']);
    expect(held.request.url).toBe('http://127.0.0.1:1/token?x=1');
  });

  it('sends a removed parameter as removed and an added one as added, each said in a line', async () => {
    const stepper = person((r) => ({
      action: 'send',
      fields: [...r.fields.filter((f) => f.name !== 'code'), { place: 'query', name: 'prompt', value: 'login', secret: false }],
    }));
    const held = await holdRequest({ stepper, secrets: new Set() }, 'token', 'token request', TOKEN_REQUEST);
    expect(held.edits).toEqual(['form code removed', 'query prompt="login" added']);
    expect(held.request.url).toBe('http://127.0.0.1:1/token?x=1&prompt=login');
    expect(new URLSearchParams(held.request.body).has('code')).toBe(false);
  });

  it('with --show-secrets, shows every value and lets the person change a secret too', async () => {
    const stepper = person((r) => ({ action: 'send', fields: r.fields.map((f) => (f.name === 'code_verifier' ? { ...f, value: 'other' } : f)) }), true);
    const held = await holdRequest({ stepper, secrets: new Set() }, 'token', 'token request', TOKEN_REQUEST);
    expect(stepper.shown[0]!.fields.find((f) => f.name === 'code_verifier')).toMatchObject({ value: 'v3rifier', secret: false });
    expect(new URLSearchParams(held.request.body).get('code_verifier')).toBe('other');
    // The line for the trace still does not spell a secret out.
    expect(held.edits).toEqual(['form code_verifier: [secret] -> [secret]']);
  });

  it('Skip throws StepSkipped (the request fails as if no answer came); Abort a FlowError that says nothing more was sent', async () => {
    await expect(holdRequest({ stepper: person(() => ({ action: 'skip' })), secrets: new Set() }, 'token', 'token request', TOKEN_REQUEST)).rejects.toThrow(StepSkipped);
    const stepper = person(() => ({ action: 'abort' }));
    const recorder = { stepper: stepper as Stepper, secrets: new Set<string>() };
    const aborted = holdRequest(recorder, 'token', 'token request', TOKEN_REQUEST);
    await expect(aborted).rejects.toThrow(FlowError);
    await expect(aborted).rejects.toThrow('aborted before the token request (--step)');
    // Every later stop aborts too, without asking again.
    await expect(holdRequest(recorder, 'jwks', 'key set request', { method: 'GET', url: 'http://127.0.0.1:1/jwks', headers: [] })).rejects.toThrow('aborted before the key set request');
    expect(stepper.shown).toHaveLength(1);
  });
});
