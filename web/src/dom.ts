// A tiny DOM helper: h("button", { class: "x", onclick }, "Label") builds an element with attributes and children.

export type Attrs = Record<string, string | boolean | number | ((event: MouseEvent) => void) | undefined>;
export type Child = Node | string | undefined | false;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(key.replace(/^on/, ""), value as EventListener);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child !== undefined && child !== false) element.append(child);
  }
  return element;
}
