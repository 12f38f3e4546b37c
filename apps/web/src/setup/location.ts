// One query parameter of the address as React state (`?service=…` on the services page): changing
// it pushes a history entry, so Back returns to where the person was, and a shared link opens it.
import { useCallback, useEffect, useState } from "react";

const read = (name: string) => new URLSearchParams(window.location.search).get(name);

/** The parameter's value (null when absent) and a setter that pushes the new address. */
export function useSearchParam(name: string): [string | null, (value: string | null) => void] {
  const [value, setValue] = useState(() => read(name));
  useEffect(() => {
    const onPop = () => {
      setValue(read(name));
    };
    window.addEventListener("popstate", onPop);
    return () => {
      window.removeEventListener("popstate", onPop);
    };
  }, [name]);
  const set = useCallback(
    (next: string | null) => {
      const address = new URL(window.location.href);
      if (next === null) address.searchParams.delete(name);
      else address.searchParams.set(name, next);
      window.history.pushState(null, "", address);
      setValue(next);
      window.scrollTo(0, 0);
    },
    [name],
  );
  return [value, set];
}

/** The address of the current page with the parameter set (for links that work without script, and in a new tab). */
export function hrefWith(name: string, value: string | null): string {
  const address = new URL(window.location.href);
  if (value === null) address.searchParams.delete(name);
  else address.searchParams.set(name, value);
  return `${address.pathname}${address.search}`;
}
