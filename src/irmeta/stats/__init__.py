"""Meta-evaluation: how far can a measure be trusted?

Rank correlation (:mod:`.correlation`), significance tests between systems
(:mod:`.significance`), discriminative power (:mod:`.discriminative`), stability under
topic subsampling (:mod:`.stability`), and subsampling of judgments and systems
(:mod:`.subsample`). Every function takes per-topic score matrices (systems x topics,
``irmeta.evaluate(...).matrix(measure)``) or a campaign plus measure names, and every
random procedure takes a ``seed`` and reproduces bit for bit.
"""

from irmeta.stats.agreement import Agreement, cohen_kappa, qrels_agreement
from irmeta.stats.correlation import (
                                      alpha_sweep,
                                      correlation_matrix,
                                      kendall_pvalues,
                                      kendall_tau,
                                      kendall_test,
                                      rank_correlation,
                                      system_means,
                                      tau_ap,
)
from irmeta.stats.discriminative import (
                                      as_matrices,
                                      asl_curve,
                                      bootstrap_power,
                                      discriminative_power,
                                      matrices,
)
from irmeta.stats.leaderboard import Leaderboard, leaderboard, mean_intervals
from irmeta.stats.reproducibility import Reproducibility, reproducibility
from irmeta.stats.reusability import Reusability, reusability
from irmeta.stats.significance import (
                                      CORRECTIONS,
                                      TESTS,
                                      BootstrapResult,
                                      ConfidenceInterval,
                                      PairedTResult,
                                      PairwiseResult,
                                      PairwiseTukeyResult,
                                      RandomisedTukeyResult,
                                      TestParameters,
                                      TukeyHSDResult,
                                      adjust_pvalues,
                                      bootstrap,
                                      paired_t,
                                      pairwise_test,
                                      pairwise_tukey,
                                      randomisation,
                                      randomised_tukey_hsd,
                                      tukey_hsd,
                                      wilcoxon,
)
from irmeta.stats.stability import (
                                      StabilityResult,
                                      buckley_voorhees,
                                      fuzziness_stability,
                                      stability_table,
)
from irmeta.stats.subsample import (
                                      downsample_qrels,
                                      downsample_rows,
                                      filter_top_runs,
                                      pool_downsampling,
                                      qrels_of,
                                      system_dependence,
)
from irmeta.stats.topic_set_size import TopicSetSize, topic_set_size

__all__ = [
    "alpha_sweep", "correlation_matrix", "kendall_pvalues", "kendall_tau",
    "kendall_test", "rank_correlation", "system_means",
    "tau_ap", "as_matrices", "asl_curve", "bootstrap_power", "discriminative_power", "matrices",
    "CORRECTIONS", "TESTS", "PairwiseResult", "PairedTResult", "BootstrapResult",
    "TukeyHSDResult", "RandomisedTukeyResult", "PairwiseTukeyResult", "TestParameters",
    "ConfidenceInterval", "adjust_pvalues", "bootstrap", "paired_t", "pairwise_test",
    "pairwise_tukey", "randomisation", "randomised_tukey_hsd", "tukey_hsd",
    "wilcoxon", "StabilityResult", "buckley_voorhees", "fuzziness_stability",
    "stability_table", "downsample_qrels", "downsample_rows", "filter_top_runs",
    "pool_downsampling", "qrels_of", "system_dependence", "Leaderboard", "leaderboard",
    "mean_intervals",
    "Agreement", "cohen_kappa", "qrels_agreement", "Reproducibility", "reproducibility",
    "Reusability", "reusability", "TopicSetSize", "topic_set_size",
]
