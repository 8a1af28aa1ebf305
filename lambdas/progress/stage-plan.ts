import type { TaskStatus, TimelinePlan } from './timeline.ts';

/** A workflow stage: its title and the agent roles (profiles) that work in it. */
export interface Stage {
  id: string;
  title: string;
  profiles: readonly string[];
}

/**
 * A workflow's stages as a plan: the stage of the turn's role in progress, the ones before it
 * done, the ones after it pending. A role in no stage gets no plan.
 */
export function stagePlan(title: string, stages: readonly Stage[]) {
  return (input: { profile: string }): TimelinePlan | undefined => {
    const current = stages.findIndex((stage) => stage.profiles.includes(input.profile));
    if (current < 0) return undefined;
    const status = (index: number): TaskStatus =>
      index < current ? 'complete' : index === current ? 'in_progress' : 'pending';
    return {
      title,
      steps: stages.map((stage, index) => ({
        id: `stage:${stage.id}`,
        title: stage.title,
        status: status(index),
      })),
    };
  };
}
