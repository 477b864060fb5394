/* The noncentral t distribution (see kernels_nct.c): CDF, its derivative in the
 * noncentrality, and the noncentrality at which the CDF takes a level. */
#ifndef IRPREF_KERNELS_NCT_H
#define IRPREF_KERNELS_NCT_H

/* Gauss-Hermite points and weights of the expectation over Z ~ N(0, 1). */
typedef struct {
    int n;
    const double *node;
    const double *weight;
} nct_nodes;

/* mode: -1 chooses (the series, or the mixture far in t), 0 series, 1 mixture. */
void nct_cdf(double t, double nu, double delta, const nct_nodes *gh, int mode, double *f,
             double *df);

/* The delta with F(t; nu, delta) = level; z = Phi^-1(level) seeds the search. */
double nct_noncentrality(double t, double nu, double level, double z, const nct_nodes *gh);

#endif
