# A cell a student adds after their code to get 10 of 10 without the design: every name and module attribute the
# grade used to read, rebound in the kernel. The grade must come out as the design alone earns.
import labkit.grading
import labkit.patterns.exercise


class AllPassed:
    passed = True

    def score(self, out_of=10):
        return float(out_of)

    def __str__(self):
        return "PASSED: everything"


report = AllPassed()  # the name the old grade cell read
index_table.check_exercise = lambda *args, **kwargs: AllPassed()  # the check, as the module's attribute
check_exercise = index_table.check_exercise  # and as a bare name
labkit.patterns.exercise.CheckReport.score = lambda self, out_of=10: float(out_of)  # the report's own scoring
labkit.grading.graded = lambda *args, **kwargs: 10.0  # the grading helper
