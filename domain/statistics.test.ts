/**
 * The results' statistics against known values: each expected figure below was computed by SciPy
 * 1.17 (scipy.stats.ttest_ind(equal_var=False) with its confidence_interval(0.95); the
 * two-proportion z-test from scipy.stats.norm, its p-value equal to chi2_contingency's without
 * continuity correction), and the differences and pooled shares are checked by hand in comments.
 */
import { normalTwoSided, sampleOf, studentQuantile, studentTwoSided, twoProportions, welch } from './statistics';

describe("Welch's t-test", () => {
  it('matches SciPy on two small samples of counts', () => {
    // Means 44 / 8 = 5.5 and 20 / 7 = 2.857142...: difference 2.642857...
    const r = welch(sampleOf([3, 5, 2, 8, 7, 6, 4, 9]), sampleOf([2, 3, 1, 4, 3, 2, 5]));
    expect(r.difference).toBeCloseTo(2.642857142857143, 12);
    expect(r.pValue).toBeCloseTo(0.023155647132894742, 9);
    expect(r.ci95![0]).toBeCloseTo(0.4353516920886231, 9);
    expect(r.ci95![1]).toBeCloseTo(4.850362593625663, 9);
  });

  it('matches SciPy on samples of amounts, and no difference found', () => {
    // Means 57 / 5 = 11.4 and 62.25 / 6 = 10.375: difference 1.025.
    const r = welch(sampleOf([10.5, 12.25, 9.75, 11.0, 13.5]), sampleOf([10.0, 10.5, 11.25, 9.5, 10.75, 10.25]));
    expect(r.difference).toBeCloseTo(1.025, 12);
    expect(r.pValue).toBeCloseTo(0.20665794319554456, 9);
    expect(r.ci95).toEqual([expect.closeTo(-0.7855936195626554, 9), expect.closeTo(2.835593619562656, 9)]);
  });

  it('gives no interval or p-value below two values a side, and none at all for an empty side', () => {
    expect(welch(sampleOf([4]), sampleOf([1, 2]))).toEqual({ difference: 2.5, ci95: null, pValue: null });
    expect(welch(sampleOf([]), sampleOf([1, 2]))).toEqual({ difference: null, ci95: null, pValue: null });
    // No spread on either side: the difference is certain.
    expect(welch(sampleOf([3, 3]), sampleOf([1, 1]))).toEqual({ difference: 2, ci95: [2, 2], pValue: 0 });
    expect(welch(sampleOf([1, 1]), sampleOf([1, 1]))).toEqual({ difference: 0, ci95: [0, 0], pValue: 1 });
  });
});

describe('the two-proportion z-test', () => {
  it('matches SciPy on 45 of 100 against 30 of 100', () => {
    // Shares 0.45 and 0.30: difference 0.15; pooled 75 / 200 = 0.375, z = 0.15 / sqrt(0.375 * 0.625 * 0.02) = 2.19089...
    const r = twoProportions(45, 100, 30, 100);
    expect(r.difference).toBeCloseTo(0.15, 12);
    expect(r.pValue).toBeCloseTo(0.02845973691631055, 10);
    expect(r.ci95![0]).toBeCloseTo(0.017430493307564826, 10);
    expect(r.ci95![1]).toBeCloseTo(0.2825695066924352, 10);
  });

  it('gives nothing for an empty side, and p = 1 when every player on both sides did the same', () => {
    expect(twoProportions(1, 2, 0, 0)).toEqual({ difference: null, ci95: null, pValue: null });
    expect(twoProportions(3, 3, 5, 5)).toEqual({ difference: 0, ci95: [0, 0], pValue: 1 });
  });
});

describe('the distributions', () => {
  it('match SciPy: the normal and Student tails, the t quantile', () => {
    expect(normalTwoSided(1)).toBeCloseTo(0.31731050786291415, 12);
    expect(normalTwoSided(3.3)).toBeCloseTo(0.0009668482847675549, 12);
    expect(studentTwoSided(2.5, 3.7)).toBeCloseTo(0.07182202291182678, 10);
    expect(studentQuantile(0.975, 3.7)).toBeCloseTo(2.8675207071911895, 9);
    expect(studentQuantile(0.975, 1e9)).toBeCloseTo(1.959963984540054, 6);
  });
});
