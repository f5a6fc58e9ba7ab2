import { openaiHttp } from '../openai/http';

/** POST {baseUrl}/responses, with OpenAI's headers, error bodies and model list. */
export const responsesHttp = openaiHttp('/responses');
