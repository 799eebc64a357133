package functions

// Wrong expected values in the pinned (and v0.88.0) std_dev.test and
// variance.test: each Why gives the arithmetic. The cases' inputs are read
// through the #1043 rewrite (rewrite.go); only the expected result changes.

const statsArith = "/extensions/functions_arithmetic.yaml"

// Why texts: the sum of squared deviations from the mean, then the divisor.
const (
	whyOddSix = "(-5, -3, -1, 1, 3, 5) has mean 0 and squared deviations 25+9+1+1+9+25 = 70, so the " +
		"sample variance is 70/5 = 14 and the sample standard deviation sqrt(14) = 3.7416573867739413; " +
		"the listed 15.1667 (3.8944) is not a variance of these values"
	whyQuarters = "(0, 100, 50, 25, 75) has mean 50 and squared deviations 2500+2500+0+625+625 = 6250, so " +
		"the sample variance is 6250/4 = 1562.5 (standard deviation 39.528470752104745) and the population " +
		"variance 6250/5 = 1250 (standard deviation 35.35533905932738); the listed 1681.25 and 1345 are not"
	whyTenths = "(1.1, 2.2, 3.3, 4.4, 5.5) has mean 3.3 and squared deviations 4.84+1.21+0+1.21+4.84 = 12.1, " +
		"so the sample variance is 12.1/4 = 3.025 (fp32: 3.025) and the standard deviation " +
		"sqrt(3.025) = 1.7392527; the listed 3.03 (1.7406897) is not"
)

func init() {
	add := func(id, text, fixed, why string) {
		overrides = append(overrides, override{ID: id, Text: text, Fixed: fixed, Include: statsArith, Why: why})
	}
	const six = "((-5), (-3), (-1), (1), (3), (5)) "
	const quarters = "((0), (100), (50), (25), (75)) "
	const tenths = "((1.1), (2.2), (3.3), (4.4), (5.5)) "
	add("arithmetic/std_dev.test#009", six+"std_dev(SAMPLE::enum, col0::fp32) = 3.8944404::fp32?",
		six+"std_dev(SAMPLE::enum, col0::fp32) = 3.7416575::fp32?", whyOddSix)
	add("arithmetic/std_dev.test#010", six+"std_dev(SAMPLE::enum, col0::fp64) = 3.8944404818493075::fp64?",
		six+"std_dev(SAMPLE::enum, col0::fp64) = 3.7416573867739413::fp64?", whyOddSix)
	add("arithmetic/std_dev.test#024", tenths+"std_dev(SAMPLE::enum, col0::fp32) [rounding:TIE_TO_EVEN] = 1.7406898::fp32?",
		tenths+"std_dev(SAMPLE::enum, col0::fp32) [rounding:TIE_TO_EVEN] = 1.7392527::fp32?", whyTenths)
	add("arithmetic/std_dev.test#028", quarters+"std_dev(SAMPLE::enum, col0::fp32) = 41.010193::fp32?",
		quarters+"std_dev(SAMPLE::enum, col0::fp32) = 39.52847::fp32?", whyQuarters)
	add("arithmetic/std_dev.test#029", quarters+"std_dev(POPULATION::enum, col0::fp64) = 36.66060555964672::fp64?",
		quarters+"std_dev(POPULATION::enum, col0::fp64) = 35.35533905932738::fp64?", whyQuarters)
	add("arithmetic/variance.test#009", six+"variance(SAMPLE::enum, col0::fp32) = 15.166667::fp32?",
		six+"variance(SAMPLE::enum, col0::fp32) = 14.0::fp32?", whyOddSix)
	add("arithmetic/variance.test#010", six+"variance(SAMPLE::enum, col0::fp64) = 15.166666666666666::fp64?",
		six+"variance(SAMPLE::enum, col0::fp64) = 14.0::fp64?", whyOddSix)
	add("arithmetic/variance.test#024", tenths+"variance(SAMPLE::enum, col0::fp32) [rounding:TIE_TO_EVEN] = 3.03::fp32?",
		tenths+"variance(SAMPLE::enum, col0::fp32) [rounding:TIE_TO_EVEN] = 3.025::fp32?", whyTenths)
	add("arithmetic/variance.test#028", quarters+"variance(SAMPLE::enum, col0::fp32) = 1681.25::fp32?",
		quarters+"variance(SAMPLE::enum, col0::fp32) = 1562.5::fp32?", whyQuarters)
	add("arithmetic/variance.test#029", quarters+"variance(POPULATION::enum, col0::fp64) = 1345::fp64?",
		quarters+"variance(POPULATION::enum, col0::fp64) = 1250.0::fp64?", whyQuarters)
}
