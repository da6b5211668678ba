import type { ThunkAction, UnknownAction } from '@reduxjs/toolkit';
import type { FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { useCheckedSubmit } from '../../ui/ScreenParts';

/** An account call (an auth thunk): what it dispatches for `arg`, and its success to match. */
interface AccountCall<Arg, Result> {
  (arg: Arg): ThunkAction<Promise<unknown>, unknown, unknown, UnknownAction>;
  fulfilled: { match(action: unknown): action is { payload: Result } };
}

/**
 * An auth form's checked submit of one account call: a problem found in the values becomes the form's error
 * and nothing is sent; otherwise `call(arg)` is dispatched with the form busy, and `done` gets its result
 * when the call succeeded.
 */
export function useAuthSubmit<Arg, Result>(call: AccountCall<Arg, Result>) {
  const dispatch = useAppDispatch();
  const { error, busy, submit } = useCheckedSubmit();
  const send = (event: FormEvent, problem: string | null, arg: Arg, done: (result: Result) => void) =>
    submit(
      event,
      problem,
      () => dispatch(call(arg)),
      (action) => {
        if (call.fulfilled.match(action)) done(action.payload);
      },
    );
  return { error, busy, send };
}
