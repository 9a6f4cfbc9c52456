/**
 * The comparisons an experiment's results make of a variant with its control (docs/audit.md,
 * "Experiments: results"): Welch's t-test for means, a two-proportion z-test for shares, each
 * with a 95% confidence interval of the difference and a two-sided p-value. Pure arithmetic: the
 * distributions come from the regularized incomplete beta and gamma functions below.
 */

/** A variant against the control: the difference (variant - control), its 95% interval and the p-value; null where undefined. */
export interface Comparison {
  difference: number | null;
  ci95: [number, number] | null;
  pValue: number | null;
}

export const NO_COMPARISON: Comparison = Object.freeze({ difference: null, ci95: null, pValue: null });

/** Count, mean and sample variance (n - 1) of a sample. */
export interface Sample {
  n: number;
  mean: number;
  variance: number;
}

export function sampleOf(values: readonly number[]): Sample {
  const n = values.length;
  if (n === 0) return { n, mean: 0, variance: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = n > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1) : 0;
  return { n, mean, variance };
}

/**
 * Welch's t-test of `variant` against `control`: the difference of the means, its 95% interval
 * (Welch–Satterthwaite degrees of freedom) and the two-sided p-value. Each sample needs two values;
 * with no spread in either, the interval is the difference itself and p is 1 or 0.
 */
export function welch(variant: Sample, control: Sample): Comparison {
  if (variant.n === 0 || control.n === 0) return NO_COMPARISON;
  const difference = variant.mean - control.mean;
  if (variant.n < 2 || control.n < 2) return { difference, ci95: null, pValue: null };
  const a = variant.variance / variant.n;
  const b = control.variance / control.n;
  const se = Math.sqrt(a + b);
  if (se === 0) return { difference, ci95: [difference, difference], pValue: difference === 0 ? 1 : 0 };
  const df = (a + b) ** 2 / (a ** 2 / (variant.n - 1) + b ** 2 / (control.n - 1));
  const t = difference / se;
  const margin = studentQuantile(0.975, df) * se;
  return { difference, ci95: [difference - margin, difference + margin], pValue: studentTwoSided(Math.abs(t), df) };
}

/**
 * The two-proportion z-test of `x1` of `n1` (the variant) against `x0` of `n0` (the control): the
 * difference of the shares, its 95% Wald interval (unpooled), and the two-sided p-value of the
 * pooled z statistic.
 */
export function twoProportions(x1: number, n1: number, x0: number, n0: number): Comparison {
  if (n1 === 0 || n0 === 0) return NO_COMPARISON;
  const p1 = x1 / n1;
  const p0 = x0 / n0;
  const difference = p1 - p0;
  const margin = Z_975 * Math.sqrt((p1 * (1 - p1)) / n1 + (p0 * (1 - p0)) / n0);
  const pooled = (x1 + x0) / (n1 + n0);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0));
  const pValue = se === 0 ? (difference === 0 ? 1 : 0) : normalTwoSided(Math.abs(difference / se));
  return { difference, ci95: [difference - margin, difference + margin], pValue };
}

/** The standard normal's 97.5th percentile. */
const Z_975 = 1.959963984540054;

/** P(|Z| >= z) for a standard normal Z: erfc(z / sqrt 2), as the upper incomplete gamma Q(1/2, z^2 / 2). */
export const normalTwoSided = (z: number): number => upperGamma(0.5, (z * z) / 2);

/** P(|T| >= t) for Student's t with `df` degrees of freedom. */
export const studentTwoSided = (t: number, df: number): number => incompleteBeta(df / (df + t * t), df / 2, 0.5);

/** The p-quantile (p > 0.5) of Student's t with `df` degrees of freedom, by bisection on its distribution. */
export function studentQuantile(p: number, df: number): number {
  const tail = 2 * (1 - p);
  let low = 0;
  let high = 1;
  while (studentTwoSided(high, df) > tail) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (studentTwoSided(mid, df) > tail) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9). */
function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = c[0];
  for (let i = 1; i < 9; i++) sum += c[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

const EPSILON = 1e-15;
const TINY = 1e-300;

/** The regularized upper incomplete gamma Q(a, x): a series below a + 1, a continued fraction above. */
function upperGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  const front = Math.exp(-x + a * Math.log(x) - lnGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 500 && Math.abs(term) > Math.abs(sum) * EPSILON; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * front;
  }
  // Lentz's method.
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return front * h;
}

/** The regularized incomplete beta I_x(a, b), by its continued fraction (Lentz's method). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast below (a + 1) / (a + b + 2); above it, by symmetry.
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 500; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + even / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    const odd = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + odd / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return (front * h) / a;
}
