/** How the dashboard prints times, money and counts. */

/** Epoch µs as local `YYYY-MM-DD HH:MM:SS`. */
export function formatTime(us: number): string {
  const d = new Date(us / 1000);
  if (Number.isNaN(d.getTime())) return "?";
  const two = (n: number) => String(n).padStart(2, "0");
  const day = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  return `${day} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** USD with as many decimals as a small amount needs. */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return "";
  if (usd === 0) return "$0";
  if (usd < 0.01) return "$" + usd.toPrecision(2);
  return "$" + usd.toFixed(usd < 1 ? 4 : 2);
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
