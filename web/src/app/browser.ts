/** Full page loads, kept behind one seam so tests can observe them. */
export const browser = {
  reloadTo(path: string): void {
    window.location.assign(path);
  },
};
