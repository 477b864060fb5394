/*
 * The noncentral t distribution for irpref._native.kernels: its CDF and the
 * derivative of the CDF in the noncentrality, and the noncentrality at which
 * the CDF takes a given level (the bounds of the exact interval of a
 * standardized mean difference, irpref.stats.noncentral). Plain C; every loop
 * runs without the GIL.
 *
 * T = (Z + delta) / sqrt(V / nu), Z ~ N(0, 1), V ~ chi2(nu). For t >= 0
 * (Lenth, "Cumulative distribution function of the non-central t
 * distribution", Appl. Statist. 38, 1989, AS 243; summed from the mode of the
 * Poisson weights in both directions as Benton & Krishnamoorthy, Comput.
 * Statist. Data Anal. 43, 2003):
 *
 *   F(t; nu, delta) = Phi(-delta) + 1/2 sum_j [P_j I_x(j + 1/2, nu/2) + Q_j I_x(j + 1, nu/2)]
 *
 * x = t^2 / (t^2 + nu), lambda = delta^2 / 2, P_j = e^-lambda lambda^j / j!,
 * Q_j = delta / sqrt(2) e^-lambda lambda^j / Gamma(j + 3/2), I_x the
 * regularized incomplete beta function; F(t) = 1 - F(-t; nu, -delta) for t < 0.
 * Differentiating the weights and summing by parts gives, with
 * G(a) = I_x(a, b) - I_x(a + 1, b) = x^a (1 - x)^b / (a B(a, b)) > 0:
 *
 *   dF/ddelta = -phi(delta) (1 - x)^(nu/2) - delta/2 sum_j [P_j G(j + 1/2) + Q_j G(j + 1)]
 *
 * (and dF/ddelta(t) = dF/ddelta(-t; -delta) for t < 0). Both sums run in one
 * pass, starting at j = floor(lambda) with I_x from its continued fraction and
 * moving by I_x(a + 1, b) = I_x(a, b) - G(a), G(a + 1) = G(a) x (a + b) / (a + 1),
 * until the remaining Poisson mass is below 1e-18.
 *
 * Far in t the series needs about 12 |delta| terms; there (|t| > BIG_T and
 * t^2 > GH_WIDTH nu) F is the exact mixture over Z, F = E_Z[Q_chi2(nu (Z + delta)^2
 * / t^2)] for t > 0, taken by Gauss-Hermite quadrature with the nodes the caller
 * passes: the integrand varies on a scale t / sqrt(2 nu) >= 20 there. A root
 * found that way with |delta| < GH_MIN_DELTA (where the kink at Z = -delta is
 * near the nodes) is found again with the series.
 */
#include "kernels_nct.h"

#include <stddef.h>
#include <math.h>

#define LN_SQRT_2PI  0.91893853320467274178
#define SQRT_2       1.41421356237309504880
#define INV_SQRT_2PI 0.39894228040143267794
#define SERIES_EPS   1e-18
#define MAX_TERMS    2000000
#define MAX_DELTA    1e5
#define BIG_T        1000.0
#define GH_WIDTH     800.0
#define GH_MIN_DELTA 40.0

/* ln n! - (1/2 ln(2 pi n) + n ln n - n): Stirling's remainder (Loader 2000). */
static double stirlerr(double n) {
    if (n < 15.0) {
        return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - LN_SQRT_2PI;
    }
    double n2 = 1.0 / (n * n);
    return (1.0 / 12 - n2 * (1.0 / 360 - n2 * (1.0 / 1260 - n2 * (1.0 / 1680 - n2 / 1188)))) / n;
}

/* ln Gamma(u) - ln Gamma(v) without the cancellation of two large lgamma values. */
static double lgamma_ratio(double u, double v) {
    if (u < 15.0 || v < 15.0) {
        return lgamma(u) - lgamma(v);
    }
    /* ln Gamma(x) = ln sqrt(2 pi) + (x - 1/2) ln x - x + stirlerr(x) */
    return (u - 0.5) * log1p((u - v) / v) + (u - v) * log(v) - (u - v) + stirlerr(u) - stirlerr(v);
}

/* ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b), pairing the larger argument. */
static double lbeta(double a, double b) {
    if (a < b) {
        double tmp = a;
        a = b;
        b = tmp;
    }
    return lgamma(b) - lgamma_ratio(a + b, a);
}

/* x ln(x / m) + m - x, accurate near x = m (Loader's bd0). */
static double bd0(double x, double m) {
    double r = (x - m) / m;
    if (fabs(r) < 0.1) {
        /* (1 + r) ln(1 + r) - r = r^2/2 - r^3/6 + r^4/12 - ... = sum_k>=2 (-1)^k r^k / (k (k - 1)) */
        double term = r * r, sum = 0.0;
        for (int k = 2; k < 200; k++) {
            double add = term / (k * (k - 1.0));
            sum += add;
            if (fabs(add) < 1e-17 * fabs(sum)) {
                break;
            }
            term *= -r;
        }
        return m * sum;
    }
    return x * log(x / m) + m - x;
}

/* ln(m^x e^-m / Gamma(x + 1)) for real x > 0, m > 0 (Loader's Poisson density). */
static double log_poisson(double x, double m) {
    return -LN_SQRT_2PI - 0.5 * log(x) - stirlerr(x) - bd0(x, m);
}

/* The continued fraction of I_x(a, b) / G(a) (modified Lentz), x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) {
        d = tiny;
    }
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m < 10000; m++) {
        double num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = fabs(c) < tiny ? tiny : c;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < 1e-16) {
            break;
        }
    }
    return h;
}

/* I_x(a, b) given ln G(a) = ln(x^a y^b / (a B(a, b))), y = 1 - x (passed exactly). */
static double beta_inc(double a, double b, double x, double y, double log_g) {
    if (x <= 0.0) {
        return 0.0;
    }
    if (y <= 0.0) {
        return 1.0;
    }
    if (x < (a + 1.0) / (a + b + 2.0)) {
        return exp(log_g) * beta_fraction(a, b, x);
    }
    /* I_x(a, b) = 1 - I_y(b, a), and G_y(b) = G_x(a) a / b */
    return 1.0 - exp(log_g + log(a / b)) * beta_fraction(b, a, y);
}

/* F and dF/ddelta by the series, for t > 0. */
static void series(double t, double nu, double delta, double *f, double *df) {
    double t2 = t * t;
    double x = t2 / (t2 + nu), y = nu / (t2 + nu);
    double lx = -log1p(nu / t2), ly = -log1p(t2 / nu);
    double b = nu / 2.0, lam = delta * delta / 2.0;
    double k = floor(lam);
    double lp = lam > 0.0 ? (k > 0.0 ? log_poisson(k, lam) : -lam) : 0.0;
    double p0 = exp(lp);
    /* Gamma(k + 1) / Gamma(k + 3/2) turns P_k into e^-lam lam^k / Gamma(k + 3/2) */
    double q0 = delta / SQRT_2 * exp(lp - lgamma_ratio(k + 1.5, k + 1.0));
    double ga_log = (k + 0.5) * lx + b * ly - log(k + 0.5) - lbeta(k + 0.5, b);
    double gb_log = (k + 1.0) * lx + b * ly - log(k + 1.0) - lbeta(k + 1.0, b);
    double a0 = beta_inc(k + 0.5, b, x, y, ga_log);
    double b0 = beta_inc(k + 1.0, b, x, y, gb_log);
    double ga0 = exp(ga_log), gb0 = exp(gb_log);
    double sf = p0 * a0 + q0 * b0, sd = p0 * ga0 + q0 * gb0;

    /* forward: j = k + 1, k + 2, ... */
    double p = p0, q = q0, ia = a0, ib = b0, ga = ga0, gb = gb0, inv1 = 1.0 / (k + 1.0);
    for (long n = 0; n < MAX_TERMS; n++) {
        double j = k + n; /* the terms of index j are in hand; move to j + 1 */
        double inv15 = 1.0 / (j + 1.5), inv2 = 1.0 / (j + 2.0); /* two divisions a term */
        ia = fmax(ia - ga, 0.0);
        ib = fmax(ib - gb, 0.0);
        ga *= x * (j + 0.5 + b) * inv15;
        gb *= x * (j + 1.0 + b) * inv2;
        p *= lam * inv1;
        q *= lam * inv15;
        sf += p * ia + q * ib;
        sd += p * ga + q * gb;
        double r = lam * inv2;
        if ((p + fabs(q)) * ia * r < SERIES_EPS * (1.0 - r)) {
            break;
        }
        inv1 = inv2;
    }
    /* backward: j = k - 1, ..., 0 */
    p = p0, q = q0, ia = a0, ib = b0, ga = ga0, gb = gb0;
    double inv_x = 1.0 / x, inv_lam = 1.0 / lam;
    for (double j = k; j > 0.0 && j > k - MAX_TERMS; j -= 1.0) {
        /* G(a - 1) = G(a) a / (x (a - 1 + b)), a = j + 1/2 and j + 1 */
        ga *= (j + 0.5) * inv_x / (j - 0.5 + b);
        gb *= (j + 1.0) * inv_x / (j + b);
        ia += ga;
        ib += gb;
        p *= j * inv_lam;
        q *= (j + 0.5) * inv_lam;
        sf += p * ia + q * ib;
        sd += p * ga + q * gb;
        double rho = (j - 0.5) * inv_lam;
        if (rho < 1.0 && (p + fabs(q)) * rho < SERIES_EPS * (1.0 - rho)) {
            break;
        }
    }
    *f = fmin(fmax(0.5 * erfc(delta / SQRT_2) + 0.5 * sf, 0.0), 1.0);
    *df = -exp(-lam) * INV_SQRT_2PI * exp(b * ly) - 0.5 * delta * sd;
}

/* ln(x^a e^-x / Gamma(a)): the gamma density's kernel, x > 0. */
static double log_gamma_kernel(double a, double x) {
    return log(a) + log_poisson(a, x);
}

/* Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma function. */
static double gamma_q(double a, double x) {
    if (x <= 0.0) {
        return 1.0;
    }
    double lk = log_gamma_kernel(a, x);
    if (x < a + 1.0) {
        /* P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)) */
        double term = 1.0, sum = 1.0;
        for (int n = 1; n < 100000; n++) {
            term *= x / (a + n);
            sum += term;
            if (term < 1e-17 * sum) {
                break;
            }
        }
        return 1.0 - exp(lk - log(a)) * sum;
    }
    /* Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)) (Lentz) */
    const double tiny = 1e-300;
    double bb = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / bb, h = d;
    for (int n = 1; n < 100000; n++) {
        double an = -n * (n - a);
        bb += 2.0;
        d = an * d + bb;
        d = fabs(d) < tiny ? tiny : d;
        c = bb + an / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < 1e-16) {
            break;
        }
    }
    return exp(lk) * h;
}

/* F and dF/ddelta as the Gauss-Hermite mixture over Z, for t > 0. */
static void mixture(double t, double nu, double delta, const nct_nodes *gh, double *f, double *df) {
    double a = nu / 2.0, sf = 0.0, sd = 0.0;
    for (int i = 0; i < gh->n; i++) {
        double w = gh->weight[i], s = gh->node[i] + delta; /* node: a N(0, 1) point */
        if (s <= 0.0) {
            sf += w;
            continue;
        }
        double u = s / t, half = nu * u * u / 2.0; /* chi2 value nu (s / t)^2, halved */
        sf += w * gamma_q(a, half);
        /* d/ddelta Q(a, half) = -half^(a-1) e^-half / Gamma(a) * nu s / t^2 */
        if (half > 0.0) {
            sd -= w * exp(log_gamma_kernel(a, half) - log(half)) * nu * u / t;
        }
    }
    *f = sf;
    *df = sd;
}

static int use_mixture(double t, double nu) {
    return fabs(t) > BIG_T && t * t > GH_WIDTH * nu;
}

void nct_cdf(double t, double nu, double delta, const nct_nodes *gh, int mode, double *f,
             double *df) {
    if (!(nu > 0.0) || isnan(t) || isnan(delta) || isinf(t)) {
        *f = *df = NAN;
        return;
    }
    if (t == 0.0) {
        *f = 0.5 * erfc(delta / SQRT_2);
        *df = -exp(-delta * delta / 2.0) * INV_SQRT_2PI;
        return;
    }
    if (mode < 0) {
        mode = use_mixture(t, nu);
    }
    double sign = t < 0.0 ? -1.0 : 1.0;
    double tt = fabs(t), dd = sign * delta;
    if (mode == 0 && fabs(dd) > MAX_DELTA && gh != NULL && gh->n > 0) {
        mode = 1; /* the series would need more than MAX_TERMS terms: F is 0 or 1 there */
    }
    if (mode == 1 && gh != NULL && gh->n > 0) {
        mixture(tt, nu, dd, gh, f, df);
    } else {
        series(tt, nu, dd, f, df);
    }
    if (sign < 0.0) {
        *f = 1.0 - *f;
    }
}

/* The start of the search: F(t; nu, delta) = P(W >= delta), W = t S - Z with
 * S = sqrt(V / nu), so delta is the (1 - level) quantile of W, taken from its first four
 * cumulants (Cornish-Fisher); E[S^k] = (2 / nu)^(k/2) Gamma((nu + k) / 2) / Gamma(nu / 2),
 * E[S^2] = 1, E[S^3] = E[S] (nu + 1) / nu, E[S^4] = (nu + 2) / nu. *spread: sd of W. */
static double start(double t, double nu, double z, double *spread) {
    double m1 =
        nu > 1e7 ? 1.0 - 0.25 / nu : sqrt(2.0 / nu) * exp(lgamma_ratio((nu + 1.0) / 2.0, nu / 2.0));
    double m3 = m1 * (nu + 1.0) / nu, m4 = (nu + 2.0) / nu, var = fmax(1.0 - m1 * m1, 0.0);
    double k3 = m3 - 3.0 * m1 + 2.0 * m1 * m1 * m1;
    double k4 = m4 - 4.0 * m1 * m3 + 6.0 * m1 * m1 - 3.0 * m1 * m1 * m1 * m1 - 3.0 * var * var;
    double sd = sqrt(1.0 + t * t * var), t2 = t * t / (sd * sd);
    double g1 = k3 * t * t2 / sd, g2 = k4 * t2 * t2, zp = -z;
    double w = zp + (zp * zp - 1.0) * g1 / 6.0 + (zp * zp * zp - 3.0 * zp) * g2 / 24.0 -
               (2.0 * zp * zp * zp - 5.0 * zp) * g1 * g1 / 36.0;
    if (!isfinite(w) || fabs(w - zp) > 2.0) {
        w = zp; /* too skewed for the expansion (df of 1 or 2): the normal start */
    }
    *spread = sd;
    return t * m1 + sd * w;
}

/* The root of F(t; nu, delta) = level in delta (F falls as delta grows): Newton steps
 * kept inside the bracket the signs of F - level have shown so far, a bisection or a
 * doubling step when a Newton step would leave it. */
static double root(double t, double nu, double level, double z, const nct_nodes *gh, int mode) {
    double spread, x = start(t, nu, z, &spread), lo = -INFINITY, hi = INFINITY;
    double grow = spread;
    for (int it = 0; it < 300; it++) {
        double f, d;
        nct_cdf(t, nu, x, gh, mode, &f, &d);
        if (isnan(f)) {
            return NAN;
        }
        double g = f - level;
        if (g == 0.0) {
            return x;
        }
        if (g > 0.0) {
            lo = x;
        } else {
            hi = x;
        }
        double nx = x - g / d;
        /* a Newton step stays inside the bracket, and within `grow` of x while one side
           is open (a flat tail would send it arbitrarily far) */
        int newton = d < 0.0 && nx > lo && nx < hi &&
                     ((isfinite(lo) && isfinite(hi)) || fabs(nx - x) <= grow);
        if (!newton) {
            if (isfinite(lo) && isfinite(hi)) {
                nx = 0.5 * (lo + hi);
            } else {
                nx = isfinite(lo) ? lo + grow : hi - grow;
                grow *= 2.0;
            }
        }
        /* after a Newton step of s the error is about |F'' / 2F'| s^2: s <= 1e-7 (1 + |x|)
           leaves it far below 1e-12 relative */
        double tol = 1e-7 * (1.0 + fabs(nx));
        if ((newton && fabs(nx - x) <= tol) || hi - lo <= 1e-15 * (1.0 + fabs(nx))) {
            return nx;
        }
        x = nx;
    }
    return x;
}

double nct_noncentrality(double t, double nu, double level, double z, const nct_nodes *gh) {
    if (!(nu > 0.0) || !isfinite(t) || !(level > 0.0 && level < 1.0)) {
        return NAN;
    }
    if (use_mixture(t, nu) && gh != NULL && gh->n > 0) {
        double x = root(t, nu, level, z, gh, 1);
        if (fabs(x) >= GH_MIN_DELTA) {
            return x;
        }
    }
    return root(t, nu, level, z, gh, 0);
}
