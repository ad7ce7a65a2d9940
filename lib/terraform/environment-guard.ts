import { TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';

/**
 * The `environment` variable every stack declares. Its default is the stack's own environment and
 * any other value fails the plan, so `--var environment=x` cannot apply one environment's
 * settings to another's state.
 */
export class EnvironmentGuard extends Construct {
  public readonly variable: TerraformVariable;

  constructor(scope: Construct, id: string, environmentName: string) {
    super(scope, id);
    this.variable = new TerraformVariable(this, 'environment', {
      type: 'string',
      default: environmentName,
      description: `Environment of this stack; must be "${environmentName}".`,
      validation: [
        {
          condition: `\${var.environment == "${environmentName}"}`,
          errorMessage: `This stack belongs to environment "${environmentName}"; --var environment must be "${environmentName}" or omitted.`,
        },
      ],
    });
    this.variable.overrideLogicalId('environment');
  }
}
