/** A choice for a list filter (a manager, a topic): its id and the name shown. */
export type Choice = { id: number | string; name: string };

/**
 * One filter of a list's GET form (/callbacks, /access-log): a menu of `choices` with Все first (no filter). A
 * wrong value sent in the address (a hand-edited id) is said under it, as a form's field error is.
 */
export function ListFilter({
  id,
  name,
  label,
  value,
  choices,
  error,
}: {
  id: string;
  name: string;
  label: string;
  value: string;
  choices: Choice[];
  error?: string | null;
}) {
  return (
    <div>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        name={name}
        defaultValue={value}
        className="input"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        <option value="">Все</option>
        <ChoiceOptions choices={choices} />
      </select>
      {error ? (
        <p id={`${id}-error`} className="mt-1 max-w-xs text-sm text-red-700 dark:text-red-400" data-field-error="">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function ChoiceOptions({ choices }: { choices: Choice[] }) {
  return (
    <>
      {choices.map((c) => (
        <option key={c.id} value={c.id}>
          {c.name}
        </option>
      ))}
    </>
  );
}
