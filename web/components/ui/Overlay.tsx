/** The shade behind a modal layer (prompts, search, menus, the drawer): a click on it dismisses the layer. */
export function Overlay({ onDismiss, clear = false }: { onDismiss: () => void; clear?: boolean }) {
  // A pointer's way out, hidden from assistive technology: the keyboard's is Escape, handled by each layer.
  return <div className={`overlay${clear ? ' overlay-clear' : ''}`} aria-hidden="true" onClick={onDismiss} />;
}
